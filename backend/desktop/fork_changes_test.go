package desktop_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// forkedWriter runs one session that creates new.txt and rewrites old.txt (one write_file
// each, approved by the mode) and returns the app, the session and the two result rows.
func forkedWriter(t *testing.T, ws string) (*testApp, desktop.Session, int64, int64) {
	t.Helper()
	srv := startFake(t)
	app := newTestApp(t, "")
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-test-secret", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "old.txt"), []byte("as the person wrote it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newArgs, _ := json.Marshal(map[string]string{"path": "new.txt", "content": "made by the agent\n"})
	oldArgs, _ := json.Marshal(map[string]string{"path": "old.txt", "content": "rewritten by the agent\n"})
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: string(newArgs)}),
		fakeai.ToolCalls(fakeai.Call{ID: "w2", Name: "write_file", Arguments: string(oldArgs)}), fakeai.Text("done"))
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "write two files")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run: %v", end)
	}
	cs, err := app.Changes(s.ID)
	if err != nil || len(cs) != 2 || cs[0].Path != "new.txt" || cs[1].Path != "old.txt" {
		t.Fatalf("the parent's own changes: %+v %v", cs, err)
	}
	return app, s, cs[0].Seq, cs[1].Seq
}

// changedAt names the changes the session's rows made (edits seen from outside left out).
func changedAt(cs []checkpoint.Change) []string {
	var out []string
	for _, c := range cs {
		if c.By == checkpoint.ByOutside {
			continue
		}
		out = append(out, c.Path+"@"+string(c.Change))
	}
	return out
}

func lastRowKind(t *testing.T, app *testApp, id string) (int64, store.Kind) {
	t.Helper()
	v, err := app.OpenSession(id)
	if err != nil || len(v.Rows) == 0 {
		t.Fatalf("open %s: %v", id, err)
	}
	last := v.Rows[len(v.Rows)-1]
	return last.Seq, last.Kind
}

// A fork sharing its parent's folder shows the files its inherited rows changed, with their
// diffs, and restores to before one of them as the parent would: a file the person edited
// since is a conflict that changes nothing until they choose to overwrite it, and the restore
// is a row of the fork, not of the parent.
func TestForkRestoresItsInheritedRowsInTheSharedFolder(t *testing.T) {
	ws := t.TempDir()
	app, parent, newSeq, oldSeq := forkedWriter(t, ws)
	parentLast, _ := lastRowKind(t, app, parent.ID)
	fork, err := app.ForkSession(parent.ID, parentLast)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := app.Changes(fork.ID)
	if err != nil || !slices.Equal(changedAt(cs), []string{"new.txt@created", "old.txt@modified"}) || cs[0].Seq != newSeq || cs[1].Seq != oldSeq {
		t.Fatalf("the fork's inherited rows list %v (%+v), want new.txt created at %d and old.txt modified at %d", changedAt(cs), err, newSeq, oldSeq)
	}
	d, err := app.FileDiff(fork.ID, oldSeq, "old.txt")
	if err != nil || d.Before != "as the person wrote it\n" || d.After != "rewritten by the agent\n" {
		t.Fatalf("the inherited row's diff: %+v %v", d, err)
	}

	// The person edits old.txt by hand: the restore names it and changes nothing.
	if err := os.WriteFile(filepath.Join(ws, "old.txt"), []byte("the person's own edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	preview, err := app.RestorePreview(fork.ID, newSeq, "")
	if err != nil || len(preview.Restored) != 2 || len(preview.Conflicts) != 1 || preview.Conflicts[0].Path != "old.txt" {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	var conflict *checkpoint.ConflictError
	if _, err := app.Restore(fork.ID, newSeq, "", nil); !errors.As(err, &conflict) {
		t.Fatalf("restore over the person's edit: %v, want a conflict", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "old.txt")); string(b) != "the person's own edit\n" {
		t.Fatalf("old.txt after a refused restore: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err != nil {
		t.Fatalf("new.txt went although the restore was refused: %v", err)
	}

	plan, err := app.Restore(fork.ID, newSeq, "", []string{"old.txt"})
	if err != nil || plan.Seq == 0 {
		t.Fatalf("restore with old.txt chosen: %+v %v", plan, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("new.txt, created by an inherited row, is still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "old.txt")); string(b) != "as the person wrote it\n" {
		t.Fatalf("old.txt after the restore: %q", b)
	}
	if seq, kind := lastRowKind(t, app, fork.ID); seq != plan.Seq || kind != store.KindRestore {
		t.Fatalf("the fork's last row is %d %s, want the restore at %d", seq, kind, plan.Seq)
	}
	if seq, _ := lastRowKind(t, app, parent.ID); seq != parentLast {
		t.Fatalf("the parent got row %d; its rows ended at %d", seq, parentLast)
	}
	// The restore's own changes are the fork's, so it can be undone there like any row.
	cs, _ = app.Changes(fork.ID)
	if got := changedAt(cs); !slices.Equal(got, []string{"new.txt@created", "old.txt@modified", "new.txt@deleted", "old.txt@modified"}) || cs[len(cs)-1].Seq != plan.Seq {
		t.Fatalf("the fork's changes after its restore: %v", got)
	}
	if cs, _ := app.Changes(parent.ID); !slices.Equal(changedAt(cs), []string{"new.txt@created", "old.txt@modified"}) {
		t.Fatalf("the parent's changes: %v", changedAt(cs))
	}
}

// A fork with its own folder (a full copy: the folder is not in a repository) restores its
// inherited rows inside that folder from the stored contents; the parent's folder is not
// touched.
func TestForkWithFilesRestoresItsInheritedRowsInItsOwnFolder(t *testing.T) {
	ws := t.TempDir()
	app, parent, newSeq, oldSeq := forkedWriter(t, ws)
	parentLast, _ := lastRowKind(t, app, parent.ID)
	fork, err := app.ForkSessionWithFiles(parent.ID, parentLast)
	if err != nil {
		t.Fatal(err)
	}
	if fork.Workspace == ws {
		t.Fatal("the fork shares its parent's folder")
	}
	cs, err := app.Changes(fork.ID)
	if err != nil || !slices.Equal(changedAt(cs), []string{"new.txt@created", "old.txt@modified"}) || cs[1].Seq != oldSeq {
		t.Fatalf("the fork's inherited rows list %v (%v)", changedAt(cs), err)
	}
	plan, err := app.Restore(fork.ID, newSeq, "", nil)
	if err != nil || len(plan.Restored) != 2 || plan.Seq == 0 {
		t.Fatalf("restore in the fork's folder: %+v %v", plan, err)
	}
	if _, err := os.Stat(filepath.Join(fork.Workspace, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("new.txt is still in the fork's folder: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(fork.Workspace, "old.txt")); string(b) != "as the person wrote it\n" {
		t.Fatalf("the fork's old.txt: %q", b)
	}
	for name, want := range map[string]string{"new.txt": "made by the agent\n", "old.txt": "rewritten by the agent\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != want {
			t.Fatalf("the parent's %s became %q", name, b)
		}
	}
	if seq, kind := lastRowKind(t, app, fork.ID); seq != plan.Seq || kind != store.KindRestore {
		t.Fatalf("the fork's last row is %d %s, want the restore at %d", seq, kind, plan.Seq)
	}
	// An edit the person makes in the fork's folder afterwards is never silently undone.
	if err := os.WriteFile(filepath.Join(fork.Workspace, "old.txt"), []byte("edited in the fork\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var conflict *checkpoint.ConflictError
	if _, err := app.Restore(fork.ID, oldSeq, "", nil); !errors.As(err, &conflict) || len(conflict.Files) != 1 || conflict.Files[0].Path != "old.txt" {
		t.Fatalf("restore over the person's edit in the fork's folder: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(fork.Workspace, "old.txt")); string(b) != "edited in the fork\n" {
		t.Fatalf("the fork's old.txt after a refused restore: %q", b)
	}
}
