package desktop_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The Workspace tab's touched files are what the checkpoints recorded: a shell command's edit
// is a changed file (its arguments name no path), a write_file that failed changed nothing,
// and each entry links to the assistant row holding its call — also when the page asks only
// for the rows after that call's row, as it does once the call's row has arrived.
func TestTouchedFilesComeFromTheCheckpoints(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := app.NewSession(dir)
	srv.Enqueue(
		fakeai.ToolCalls(
			fakeai.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"notes.txt"}`},
			fakeai.Call{ID: "s1", Name: "run_shell_command", Arguments: `{"command":"echo beta >> notes.txt && echo new > made.txt"}`},
			fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"../outside.txt","content":"x"}`}),
		fakeai.Text("done"))
	runID, err := app.SendMessage(s.ID, "change things")
	if err != nil {
		t.Fatal(err)
	}
	if ev := app.rec.runFinished(t, runID); ev["status"] != "completed" {
		t.Fatalf("run: %v", ev)
	}
	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var callRow int64
	for _, r := range view.Rows {
		if r.Kind == store.KindAssistant && callRow == 0 {
			callRow = r.Seq
		}
	}
	want := map[string]desktop.Touched{
		"notes.txt|false": {Path: "notes.txt", Seq: callRow, Tool: "read_file"},
		"notes.txt|true":  {Path: "notes.txt", Seq: callRow, Tool: "run_shell_command", Changed: true},
		"made.txt|true":   {Path: "made.txt", Seq: callRow, Tool: "run_shell_command", Changed: true},
	}
	check := func(after int64, want map[string]desktop.Touched) {
		t.Helper()
		got, err := app.TouchedFiles(s.ID, after)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("TouchedFiles(after %d) = %+v; want %d entries", after, got, len(want))
		}
		for _, g := range got {
			key := g.Path + map[bool]string{true: "|true", false: "|false"}[g.Changed]
			if w, ok := want[key]; !ok || g != w {
				t.Errorf("TouchedFiles(after %d): %+v; want %+v", after, g, w)
			}
		}
	}
	check(0, want)
	// Asked after the call's row: the read was already listed; the changes arrive with the
	// result rows, still linked to the call's row.
	delete(want, "notes.txt|false")
	check(callRow, want)
}

// The page reads what a call changed when the call's result row arrives (useWorkspace): by the
// time rows_stored carries a result row, the checkpoints' record of that call must be stored,
// or the page moves past the row and never lists the change.
func TestAResultRowArrivesAfterItsChangesAreRecorded(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, _ := app.NewSession(dir)
	var mu sync.Mutex
	var seen []string // what TouchedFiles said at each result row's arrival
	app.rec.onEmit = func(ev map[string]any) {
		if ev["type"] != "rows_stored" {
			return
		}
		rows, _ := ev["rows"].([]any)
		for _, r := range rows {
			row, _ := r.(map[string]any)
			if row["kind"] != string(store.KindToolResult) {
				continue
			}
			seq := int64(row["seq"].(float64))
			got, err := app.TouchedFiles(s.ID, seq-1)
			mu.Lock()
			if err != nil {
				seen = append(seen, "error: "+err.Error())
			}
			for _, g := range got {
				if g.Changed {
					seen = append(seen, g.Path)
				}
			}
			mu.Unlock()
		}
	}
	srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"hello.txt","content":"hi\n"}`}),
		fakeai.Text("done"))
	runID, err := app.SendMessage(s.ID, "write it")
	if err != nil {
		t.Fatal(err)
	}
	if ev := app.rec.runFinished(t, runID); ev["status"] != "completed" {
		t.Fatalf("run: %v", ev)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "hello.txt" {
		t.Fatalf("changed files read when the result row arrived: %q; want [hello.txt]", seen)
	}
}
