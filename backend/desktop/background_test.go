package desktop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// "Run in a new session": the message starts a run in a new session in the same folder,
// with the session's provider, model and approval mode; the session the person is in gets
// nothing.
func TestRunInNewSessionStartsBesideTheOpenSession(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	dir := t.TempDir()
	s, err := app.NewSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.SetSessionModel(s.ID, "", "other-model"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.SetMode(s.ID, "execute", "read-only"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.RunInNewSession(s.ID, "   "); err == nil || desktop.Classify(err).Code != desktop.CodeInvalid {
		t.Fatalf("an empty message = %v; want invalid", err)
	}
	srv.Enqueue(fakeai.Text("working on it"))
	got, err := app.RunInNewSession(s.ID, "  tidy the docs  ")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == s.ID || got.Workspace != dir || got.Model != "other-model" || !got.Running {
		t.Fatalf("new session = %+v; want another session in %s with other-model, running", got, dir)
	}
	end := app.rec.waitFor(t, "the new session's run_finished", func(ev map[string]any) bool {
		return ev["type"] == "run_finished" && ev["session_id"] == got.ID
	})
	if end["status"] != "completed" {
		t.Fatalf("the new session's run ended %v: %v", end["status"], end["error"])
	}
	view, err := app.OpenSession(got.ID)
	if err != nil {
		t.Fatal(err)
	}
	if view.Session.Title != "tidy the docs" || view.Mode.Approve != "read-only" || len(view.Rows) != 2 {
		t.Fatalf("new session: title %q, approval %q, %d rows; want the prompt's title, read-only, 2 rows",
			view.Session.Title, view.Mode.Approve, len(view.Rows))
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"other-model"`) {
		t.Fatalf("the run did not ask the session's model: %d requests", len(reqs))
	}
	old, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Rows) != 0 || len(old.Runs) != 0 {
		t.Fatalf("the open session got %d rows and %d runs; want none", len(old.Rows), len(old.Runs))
	}
	if _, err := app.RunInNewSession("no-such-session", "hi"); desktop.Classify(err).Code != desktop.CodeNotFound {
		t.Fatalf("an unknown session = %v; want not_found", err)
	}
}

// In a git folder the new session gets a worktree of its own, as a fork with files does,
// holding the changes the session made; a worktree that cannot be made leaves no session.
func TestRunInNewSessionInAGitFolderGetsItsOwnWorktree(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, "")
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-test-secret", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
	gitRun(t, ws, "init", "-q", "-b", "main")
	gitRun(t, ws, "add", "-A")
	gitRun(t, ws, "commit", "-qm", "start")
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"two\n"}`}), fakeai.Text("done"))
	runID, err := app.SendMessage(s.ID, "change a.txt")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)

	// A worktree that cannot be made (the forks folder is a file): no session is left behind.
	forks := checkpoint.ForksDir(app.dbPath)
	if err := os.WriteFile(forks, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := app.ListSessions()
	if _, err := app.RunInNewSession(s.ID, "will not start"); err == nil {
		t.Fatal("a new session started without its worktree")
	}
	if after, _ := app.ListSessions(); len(after) != len(before) {
		t.Fatalf("%d sessions after a failed start; want %d", len(after), len(before))
	}
	os.Remove(forks)

	srv.Enqueue(fakeai.Text("on my own branch"))
	got, err := app.RunInNewSession(s.ID, "try another way")
	if err != nil {
		t.Fatal(err)
	}
	if got.Workspace != filepath.Join(forks, got.ID) {
		t.Fatalf("new session works in %s; want its own worktree under %s", got.Workspace, forks)
	}
	if b, err := os.ReadFile(filepath.Join(got.Workspace, "a.txt")); err != nil || string(b) != "two\n" {
		t.Fatalf("the worktree's a.txt = %q, %v; want the session's change", b, err)
	}
	if br := gitRun(t, ws, "branch", "--list", checkpoint.BranchOf(got.ID)); !strings.Contains(br, got.ID) {
		t.Fatalf("no branch %s in the repository", checkpoint.BranchOf(got.ID))
	}
	app.rec.waitFor(t, "the new session's run_finished", func(ev map[string]any) bool {
		return ev["type"] == "run_finished" && ev["session_id"] == got.ID
	})

}
