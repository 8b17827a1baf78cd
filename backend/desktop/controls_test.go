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
)

// converse sends each message and waits for its run to complete.
func converse(t *testing.T, app *testApp, sessionID string, msgs ...string) {
	t.Helper()
	for _, m := range msgs {
		runID, err := app.SendMessage(sessionID, m)
		if err != nil {
			t.Fatal(err)
		}
		if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
			t.Fatalf("run of %q ended %v: %v", m, end["status"], end["error"])
		}
	}
}

// transcript is the session's messages and replies as "kind:text" lines, what a person reads.
func transcript(t *testing.T, app *testApp, sessionID string) []string {
	t.Helper()
	v, err := app.OpenSession(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range v.Rows {
		if r.Kind != "user" && r.Kind != "assistant" {
			continue
		}
		var p struct{ Text string }
		_ = json.Unmarshal(r.Payload, &p)
		out = append(out, string(r.Kind)+":"+p.Text)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// userMessages are the user messages of a request body, in order.
func userMessages(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range req.Messages {
		if s, ok := m.Content.(string); ok && m.Role == "user" {
			out = append(out, s)
		}
	}
	return out
}

func TestEditAndResendForksBeforeTheMessageAndKeepsTheOriginal(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("A"), fakeai.Text("B"), fakeai.Text("C"), fakeai.Text("D"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	converse(t, app, s.ID, "first", "second")
	original := transcript(t, app, s.ID)

	f, err := app.EditAndResend(s.ID, 3, "  second, edited ", false)
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, f.RunID); end["status"] != "completed" {
		t.Fatalf("the fork's run ended %v", end["status"])
	}
	want := []string{"user:first", "assistant:A", "user:second, edited", "assistant:C"}
	if got := transcript(t, app, f.Session.ID); !equal(got, want) {
		t.Fatalf("fork = %q; want %q", got, want)
	}
	if got := transcript(t, app, s.ID); !equal(got, original) {
		t.Fatalf("the original changed: %q, was %q", got, original)
	}
	reqs := srv.Requests()
	if got := userMessages(t, reqs[len(reqs)-1].Body); !equal(got, []string{"first", "second, edited"}) {
		t.Fatalf("the edit's request sent user messages %q", got)
	}
	if f.Session.ParentID != s.ID || f.Session.ForkSeq != 2 {
		t.Fatalf("fork lineage = %s at %d", f.Session.ParentID, f.Session.ForkSeq)
	}
	bs, err := app.Branches(f.Session.ID)
	if err != nil || len(bs) != 1 || bs[0].At != 2 || !equal(bs[0].Sessions, []string{s.ID, f.Session.ID}) || bs[0].Index != 1 {
		t.Fatalf("branches of the edit = %+v, %v; want the original and the edit at 2", bs, err)
	}

	// The first message can be edited too: the fork starts empty.
	first, err := app.EditAndResend(s.ID, 1, "first, edited", false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, first.RunID)
	if got := transcript(t, app, first.Session.ID); !equal(got, []string{"user:first, edited", "assistant:D"}) {
		t.Fatalf("fork of the first message = %q", got)
	}
}

func TestEditAndResendRefusesBadInputAndLeavesNoFork(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("A"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	converse(t, app, s.ID, "first")
	for _, c := range []struct {
		seq  int64
		text string
	}{{1, "   "}, {2, "not a reply"}, {9, "no such row"}} {
		if _, err := app.EditAndResend(s.ID, c.seq, c.text, false); err == nil {
			t.Errorf("edit of row %d with %q was accepted", c.seq, c.text)
		}
	}
	if _, err := app.Regenerate(s.ID, 1, false); !errors.Is(err, desktop.ErrInvalidInput) {
		t.Errorf("regenerating a message of the person: %v", err)
	}
	if list, _ := app.ListSessions(); len(list) != 1 {
		t.Fatalf("refused edits left %d sessions", len(list))
	}
}

func TestRegenerateMakesVersionsOfTheReply(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("one"), fakeai.Text("two"), fakeai.Text("three"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	converse(t, app, s.ID, "question")

	r1, err := app.Regenerate(s.ID, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, r1.RunID)
	if got := transcript(t, app, r1.Session.ID); !equal(got, []string{"user:question", "assistant:two"}) {
		t.Fatalf("regenerated = %q", got)
	}
	reqs := srv.Requests()
	if got := userMessages(t, reqs[len(reqs)-1].Body); !equal(got, []string{"question"}) {
		t.Fatalf("the regeneration sent user messages %q; want the question once", got)
	}
	// A regeneration of the regenerated reply (its run has no message of its own) is a
	// third version of the same reply.
	r2, err := app.Regenerate(r1.Session.ID, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, r2.RunID)
	if got := transcript(t, app, r2.Session.ID); !equal(got, []string{"user:question", "assistant:three"}) {
		t.Fatalf("second regeneration = %q", got)
	}
	for i, id := range []string{s.ID, r1.Session.ID, r2.Session.ID} {
		bs, err := app.Branches(id)
		if err != nil || len(bs) != 1 || bs[0].At != 1 || !equal(bs[0].Sessions, []string{s.ID, r1.Session.ID, r2.Session.ID}) || bs[0].Index != i {
			t.Fatalf("branches of version %d = %+v, %v", i+1, bs, err)
		}
	}
	if got := transcript(t, app, s.ID); !equal(got, []string{"user:question", "assistant:one"}) {
		t.Fatalf("the original changed: %q", got)
	}
}

func TestRetryRunsAgainWithoutSendingTheMessageTwice(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.HTTPError(401, `{"error":{"message":"bad key","type":"invalid_request_error"}}`), fakeai.Text("at last"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	runID, err := app.SendMessage(s.ID, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "provider_error" {
		t.Fatalf("first run ended %v", end["status"])
	}
	retry, err := app.Retry(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, retry); end["status"] != "completed" {
		t.Fatalf("retry ended %v: %v", end["status"], end["error"])
	}
	if got := transcript(t, app, s.ID); !equal(got, []string{"user:hello", "assistant:at last"}) {
		t.Fatalf("after retry = %q; want the message once and the reply", got)
	}
	reqs := srv.Requests()
	if got := userMessages(t, reqs[len(reqs)-1].Body); !equal(got, []string{"hello"}) {
		t.Fatalf("the retry sent user messages %q", got)
	}
	if _, err := app.Retry(s.ID); !errors.Is(err, desktop.ErrInvalidInput) {
		t.Fatalf("retry after a completed run: %v; want it refused", err)
	}
	if got := transcript(t, app, s.ID); len(got) != 2 {
		t.Fatalf("a refused retry changed the session: %q", got)
	}
}

func TestSessionBudgetsSetInTheHeaderBoundTheNextRun(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"."}`}), fakeai.Text("never reached"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession(t.TempDir())
	one := 1
	if _, err := app.SetSessionBudgets(s.ID, store.SessionBudgets{MaxTurns: &one}); err != nil {
		t.Fatal(err)
	}
	bad := -5
	if _, err := app.SetSessionBudgets(s.ID, store.SessionBudgets{MaxTokens: ptr(int64(bad))}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a negative budget: %v", err)
	}
	if _, err := app.SetMode(s.ID, "execute", "auto"); err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "look")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "max_turns" {
		t.Fatalf("run ended %v; want max_turns from the session's own limit of 1", end["status"])
	}
	v, err := app.OpenSession(s.ID)
	if err != nil || v.Budgets.MaxTurns == nil || *v.Budgets.MaxTurns != 1 || v.Budgets.MaxTokens != nil {
		t.Fatalf("the session view's budgets = %+v, %v", v.Budgets, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestExportMarkdownWritesTheTranscriptThePersonPicked(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("Paris."))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	converse(t, app, s.ID, "capital of France?")
	app.dialogs.save = filepath.Join(t.TempDir(), "t.md")
	path, err := app.ExportMarkdown(s.ID)
	if err != nil || path != app.dialogs.save {
		t.Fatalf("export = %q, %v", path, err)
	}
	b, _ := os.ReadFile(path)
	if md := string(b); !strings.Contains(md, "## You (#1)\n\ncapital of France?") || !strings.Contains(md, "Paris.") || strings.Contains(md, "sk-test-secret") {
		t.Fatalf("transcript:\n%s", md)
	}
	app.dialogs.save = ""
	if path, err := app.ExportMarkdown(s.ID); path != "" || err != nil {
		t.Fatalf("a cancelled dialog: %q, %v", path, err)
	}
}
