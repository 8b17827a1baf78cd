package desktop_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// reviewCall starts a run in approval mode review whose write_file call changes the first
// and last lines of a 30-line a.txt (two hunks), and waits for its card.
func reviewCall(t *testing.T, id string) (*testApp, string, string, string) {
	t.Helper()
	srv := startFake(t)
	app := newTestApp(t, "")
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-test-secret", ApprovalMode: "review"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	before := strings.Join(numberedText(30), "")
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte(before), 0o644)
	proposed := numberedText(30)
	proposed[0], proposed[29] = "ONE\n", "THIRTY\n"
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "content": strings.Join(proposed, "")})
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: id, Name: "write_file", Arguments: string(args)}), fakeai.Text("done"))
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "edit a.txt")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "the review card", func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == id
	})
	return app, s.ID, runID, ws
}

func approvalRow(t *testing.T, app *testApp, sessionID string) store.ApprovalPayload {
	t.Helper()
	view, err := app.OpenSession(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range view.Rows {
		if r.Kind == store.KindApproval {
			var p store.ApprovalPayload
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatal("no approval row")
	return store.ApprovalPayload{}
}

// A plain approval of a call under review is refused: the card always sends the person's
// hunk choices, and without them a dropped hunk would be written. Nothing is written until
// an approval says what to do with each hunk; then only the kept one is, and the approval
// row says the call was reviewed (not that its arguments were edited).
func TestReviewApprovalWithoutHunkChoicesIsRefused(t *testing.T) {
	app, sid, runID, ws := reviewCall(t, "w1")
	before, _ := os.ReadFile(filepath.Join(ws, "a.txt"))
	err := app.Decide(sid, "w1", desktop.DecisionInput{Approved: true})
	if !errors.Is(err, desktop.ErrInvalidInput) || !strings.Contains(err.Error(), "keep, drop or edit for each of its 2 hunks") {
		t.Fatalf("plain approval of a reviewed call: %v", err)
	}
	if err := app.Decide(sid, "w1", desktop.DecisionInput{Approved: true, Hunks: []tools.HunkChoice{{Hunk: 2, Action: tools.HunkDrop}}}); err == nil {
		t.Fatal("an approval naming only hunk 2 was accepted")
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != string(before) {
		t.Fatalf("written before a complete review:\n%s", got)
	}
	err = app.Decide(sid, "w1", desktop.DecisionInput{Approved: true, Hunks: []tools.HunkChoice{{Hunk: 1, Action: tools.HunkKeep}, {Hunk: 2, Action: tools.HunkDrop}}})
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run: %v", end)
	}
	want := numberedText(30)
	want[0] = "ONE\n"
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != strings.Join(want, "") {
		t.Fatalf("a.txt:\n%s", got)
	}
	if a := approvalRow(t, app, sid); strings.Join(a.Reviewed, ",") != "keep,drop" || !strings.Contains(a.Arguments, "line 30") {
		t.Fatalf("approval row: %+v", a)
	}
}

// Every hunk kept: the call runs with the model's own arguments; the approval row records the
// review and no edited arguments.
func TestReviewKeepingEveryHunkRunsTheCallAsAsked(t *testing.T) {
	app, sid, runID, ws := reviewCall(t, "w2")
	err := app.Decide(sid, "w2", desktop.DecisionInput{Approved: true, Hunks: []tools.HunkChoice{{Hunk: 1, Action: tools.HunkKeep}, {Hunk: 2, Action: tools.HunkKeep}}})
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); !strings.HasPrefix(string(got), "ONE\n") || !strings.HasSuffix(string(got), "THIRTY\n") {
		t.Fatalf("a.txt:\n%s", got)
	}
	if a := approvalRow(t, app, sid); a.Arguments != "" || strings.Join(a.Reviewed, ",") != "keep,keep" {
		t.Fatalf("approval row: %+v", a)
	}
}
