package desktop_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

func numberedText(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return out
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// A run rewrites three lines of a file in a git repository; the window keeps one hunk,
// reverts another (the note row reaches the page), lists what is left unreviewed, forks
// with files into a worktree, applies the fork's change to the parent, and deletes the
// fork with its folder.
func TestWindowHunksAndForkFolders(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, "")
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-test-secret", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte(strings.Join(numberedText(30), "")), 0o644)
	gitRun(t, ws, "init", "-q", "-b", "main")
	gitRun(t, ws, "add", "-A")
	gitRun(t, ws, "commit", "-qm", "start")
	after := numberedText(30)
	after[2], after[14], after[26] = "THREE\n", "FIFTEEN\n", "TWENTY-SEVEN\n"
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "content": strings.Join(after, "")})
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: string(args)}), fakeai.Text("done"))
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "edit a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run: %v", end)
	}
	hs, err := app.Hunks(s.ID)
	if err != nil || len(hs) != 3 {
		t.Fatalf("hunks: %+v %v", hs, err)
	}
	seq := hs[0].Seq
	if _, err := app.KeepHunk(s.ID, seq, "a.txt", 1); err != nil {
		t.Fatal(err)
	}
	rev, err := app.RevertHunk(s.ID, seq, "a.txt", 2)
	if err != nil || rev.Hunk.State != checkpoint.Reverted || rev.FromLine != 12 {
		t.Fatalf("revert: %+v %v", rev, err)
	}
	app.rec.waitFor(t, "the note row", func(ev map[string]any) bool {
		return ev["type"] == "rows_stored" && strings.Contains(fmt.Sprint(ev["rows"]), "hunk_revert")
	})
	hs, _ = app.Hunks(s.ID)
	var states []string
	for _, h := range hs {
		states = append(states, fmt.Sprintf("%d:%d:%s", h.Seq, h.Hunk, h.State))
	}
	if got := strings.Join(states, " "); got != fmt.Sprintf("%d:1:kept %d:2:reverted %d:3:unreviewed %d:1:kept", seq, seq, seq, rev.NoteSeq) {
		t.Fatalf("states: %s", got)
	}

	// Fork with files: a worktree on loopdesk/<id>, shown with its branch and size.
	fork, err := app.ForkSessionWithFiles(s.ID, rev.NoteSeq)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := app.ForkFolderOf(fork.ID)
	if err != nil || ff.Branch != "loopdesk/"+fork.ID || ff.Folder != fork.Workspace || ff.Bytes == 0 {
		t.Fatalf("fork folder: %+v %v", ff, err)
	}
	if st := gitRun(t, ff.Folder, "status", "--porcelain"); st != " M a.txt\n" {
		t.Fatalf("fork's status: %q", st)
	}
	// The fork's agent changes a line; Apply to parent folder lands it as a hunk to review.
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "e1", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"line 5\n","new_string":"line five\n"}`}), fakeai.Text("ok"))
	runID, err = app.SendMessage(fork.ID, "change line 5")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	applied, err := app.ApplyToParent(fork.ID)
	if err != nil || fmt.Sprint(applied.Paths) != "[a.txt]" {
		t.Fatalf("apply: %+v %v", applied, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); !strings.Contains(string(b), "line five\n") || !strings.Contains(string(b), "line 15\n") {
		t.Fatalf("parent's a.txt:\n%s", b)
	}
	hs, _ = app.Hunks(s.ID)
	last := hs[len(hs)-1]
	if last.Seq != applied.Seq || last.State != checkpoint.Unreviewed || !strings.Contains(last.Patch, "+line five") {
		t.Fatalf("applied hunk: %+v", last)
	}

	// Deleting the parent's folder is refused; the fork's goes with worktree and branch.
	if _, err := app.DeleteSessionAndFolder(s.ID); err == nil {
		t.Fatal("deleting a person's own folder was allowed")
	}
	removed, err := app.DeleteSessionAndFolder(fork.ID)
	if err != nil || removed == "" {
		t.Fatalf("delete fork: %q %v", removed, err)
	}
	if _, err := os.Stat(removed); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("fork folder left: %v", err)
	}
	if br := gitRun(t, ws, "branch", "--list", "loopdesk/*"); br != "" {
		t.Fatalf("branch left: %q", br)
	}
	if os, err := app.OrphanForks(); err != nil || len(os) != 0 {
		t.Fatalf("orphans: %+v %v", os, err)
	}
}

// A fork whose folder cannot be made is not left behind.
func TestForkWithFilesFailureLeavesNoFork(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("hello"))
	app := newTestApp(t, srv.URL())
	ws := t.TempDir()
	s, err := app.NewSession(ws)
	if err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "hi")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	if f, err := app.ForkSession(s.ID, 1); err != nil || f.ID == "" { // rows 1..1 fork fine
		t.Fatalf("plain fork: %v", err)
	}
	os.RemoveAll(ws) // the folder is gone: nothing to copy
	_, err = app.ForkSessionWithFiles(s.ID, 1)
	if err == nil || !strings.Contains(err.Error(), "moved or deleted") {
		t.Fatalf("a fork of a missing folder: %v", err)
	}
	list, _ := app.ListSessions()
	if len(list) != 2 { // the parent and the plain fork; no fork without its folder
		t.Fatalf("sessions after a failed fork: %d", len(list))
	}
}
