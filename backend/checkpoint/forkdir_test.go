package checkpoint_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitEnv: a repository with a committed file, an ignored .env that
// .worktreeinclude names, and a session that changes files in two calls.
func gitEnv(t *testing.T) (*env, int64, string) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{
		"a.txt": "one\n", "gone.txt": "bye\n", ".gitignore": ".env\nbuild/\n", ".worktreeinclude": ".env\n",
	})
	git(t, e.dir, "init", "-q", "-b", "main")
	git(t, e.dir, "add", "-A")
	git(t, e.dir, "commit", "-qm", "start")
	writeTree(t, e.dir, map[string]string{".env": "SECRET=1\n", "build/out.bin": "x"})
	seq, _ := e.call(e.sh("echo two >> a.txt && echo new > b.txt && rm gone.txt"))
	e.call(e.sh("echo three >> a.txt && echo later > c.txt"))
	forks := filepath.Join(t.TempDir(), "forks")
	return e, seq, forks
}

func TestForkOfAGitFolderIsAWorktree(t *testing.T) {
	e, seq, forks := gitEnv(t)
	ff, err := e.rec.MakeForkFolder(e.ctx, e.sid, seq, "f1", forks)
	if err != nil {
		t.Fatal(err)
	}
	if ff.Branch != "loopdesk/f1" || ff.Folder != filepath.Join(forks, "f1") {
		t.Fatalf("fork folder: %+v", ff)
	}
	if got := strings.TrimSpace(git(t, ff.Folder, "rev-parse", "--abbrev-ref", "HEAD")); got != "loopdesk/f1" {
		t.Fatalf("branch: %s", got)
	}
	// Exactly the session's changes up to the fork row; c.txt came later.
	if got := git(t, ff.Folder, "status", "--porcelain"); got != " M a.txt\n D gone.txt\n?? b.txt\n" {
		t.Fatalf("git status:\n%s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ff.Folder, "a.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("a.txt: %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(ff.Folder, ".env")); err != nil || string(b) != "SECRET=1\n" {
		t.Fatalf(".env (.worktreeinclude): %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ff.Folder, "build")); !os.IsNotExist(err) {
		t.Fatalf("build/ is ignored and not in .worktreeinclude: %v", err)
	}
	// The parent's folder is untouched.
	if got := git(t, e.dir, "status", "--porcelain"); got != " M a.txt\n D gone.txt\n?? b.txt\n?? c.txt\n" {
		t.Fatalf("parent status:\n%s", got)
	}

	removed, err := checkpoint.RemoveForkFolder(e.ctx, forks, "f1")
	if err != nil || removed != ff.Folder {
		t.Fatalf("remove: %q %v", removed, err)
	}
	if _, err := os.Stat(ff.Folder); !os.IsNotExist(err) {
		t.Fatalf("folder left: %v", err)
	}
	if got := git(t, e.dir, "branch", "--list", "loopdesk/*"); got != "" {
		t.Fatalf("branch left: %q", got)
	}
	// The fork's folder, not "f1": a commit hash in the listing can hold those two characters.
	if got := git(t, e.dir, "worktree", "list"); strings.Contains(got, ff.Folder) {
		t.Fatalf("worktree left:\n%s", got)
	}
}

func TestForkOfAPlainFolderCopiesIgnoredFiles(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{
		"a.txt": "one\n", ".gitignore": "build/\n", "build/out.bin": "x", "node_modules/m/index.js": "js",
		".loopdeskignore": "cache/\n", "cache/big": "zzz",
	})
	seq, _ := e.call(e.sh("echo two >> a.txt"))
	e.call(e.sh("echo three >> a.txt && rm build/out.bin"))
	forks := filepath.Join(t.TempDir(), "forks")
	ff, err := e.rec.MakeForkFolder(e.ctx, e.sid, seq, "f2", forks)
	if err != nil {
		t.Fatal(err)
	}
	if ff.Branch != "" || ff.Folder != filepath.Join(forks, "f2") {
		t.Fatalf("fork folder: %+v", ff)
	}
	got := snapshot(t, ff.Folder)
	for p, want := range map[string]string{"a.txt": `"one\ntwo\n"`, "node_modules/m/index.js": `"js"`, ".gitignore": `"build/\n"`} {
		if !strings.Contains(got[p], want) {
			t.Errorf("%s: %s, want %s", p, got[p], want)
		}
	}
	// build/out.bin is ignored (so not tracked): it is copied as it is now, gone.
	if _, ok := got["cache"]; ok {
		t.Errorf(".loopdeskignore'd cache/ was copied")
	}
	if _, ok := got["build/out.bin"]; ok {
		t.Errorf("build/out.bin was removed after the fork row but is in the copy")
	}
}

func TestOrphanSweep(t *testing.T) {
	e, seq, forks := gitEnv(t)
	fork, err := e.db.Fork(e.ctx, e.sid, seq)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := e.rec.MakeForkFolder(e.ctx, e.sid, seq, fork.ID, forks)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.SetWorkspace(e.ctx, fork.ID, ff.Folder); err != nil {
		t.Fatal(err)
	}
	if os, err := checkpoint.Orphans(e.ctx, e.db, forks); err != nil || len(os) != 0 {
		t.Fatalf("orphans while the fork lives: %+v %v", os, err)
	}
	if err := e.db.DeleteSession(e.ctx, fork.ID); err != nil {
		t.Fatal(err)
	}
	orphans, err := checkpoint.Orphans(e.ctx, e.db, forks)
	if err != nil || len(orphans) != 1 || orphans[0].ForkID != fork.ID || orphans[0].Bytes < int64(len("SECRET=1\n")) ||
		orphans[0].Branch != "loopdesk/"+fork.ID {
		t.Fatalf("orphans: %+v %v", orphans, err)
	}
	if _, err := checkpoint.RemoveForkFolder(e.ctx, forks, orphans[0].ForkID); err != nil {
		t.Fatal(err)
	}
	if left, _ := checkpoint.Orphans(e.ctx, e.db, forks); len(left) != 0 {
		t.Fatalf("after sweep: %+v", left)
	}
}

// callAt runs fn as a tool call of sid in folder dir, as the runner does.
func (e *env) callAt(sid, dir string, fn func()) int64 {
	e.t.Helper()
	e.n++
	id := fmt.Sprintf("call_%d", e.n)
	if _, err := e.db.Append(e.ctx, sid, "run", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: id, Name: "write_file", Arguments: "{}"}}}}); err != nil {
		e.t.Fatal(err)
	}
	c, err := e.rec.Before(e.ctx, sid, "run", id, dir)
	if err != nil {
		e.t.Fatal(err)
	}
	fn()
	rows, err := e.db.Append(e.ctx, sid, "run", store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: "write_file", Content: "ok"}})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := c.After(e.ctx, rows[0].Seq); err != nil {
		e.t.Fatal(err)
	}
	return rows[0].Seq
}

// Apply to parent folder: the fork's changes land in the parent's folder on
// a note row, as unreviewed hunks; a path the parent changed since is refused.
func TestApplyForkToParent(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{"a.txt": "one\n", "b.txt": "bee\n"})
	seq, _ := e.call(e.write("a.txt", []string{"one\n", "two\n"}))
	forks := filepath.Join(t.TempDir(), "forks")
	fork, _ := e.db.Fork(e.ctx, e.sid, seq)
	ff, err := e.rec.MakeForkFolder(e.ctx, e.sid, seq, fork.ID, forks)
	if err != nil {
		t.Fatal(err)
	}
	e.db.SetWorkspace(e.ctx, fork.ID, ff.Folder)
	e.callAt(fork.ID, ff.Folder, func() {
		os.WriteFile(filepath.Join(ff.Folder, "a.txt"), []byte("one\ntwo\nthree from the fork\n"), 0o644)
		os.WriteFile(filepath.Join(ff.Folder, "c.txt"), []byte("new in the fork\n"), 0o644)
	})
	applied, err := e.rec.ApplyFork(e.ctx, fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(applied.Paths) != "[a.txt c.txt]" || e.read("a.txt") != "one\ntwo\nthree from the fork\n" || e.read("c.txt") != "new in the fork\n" {
		t.Fatalf("applied %+v: a=%q", applied, e.read("a.txt"))
	}
	un, _ := e.rec.Unreviewed(e.ctx, e.sid)
	var got []string
	for _, h := range un {
		if h.Seq == applied.Seq {
			got = append(got, h.Path)
		}
	}
	if fmt.Sprint(got) != "[a.txt c.txt]" {
		t.Fatalf("unreviewed hunks of the applied row: %v (all: %+v)", got, un)
	}
	rows, _ := e.db.Chunks(e.ctx, e.sid)
	if last := rows[len(rows)-1]; last.Kind != store.KindNote || !strings.Contains(string(last.Payload), "fork_apply") {
		t.Fatalf("note row: %s", last.Payload)
	}

	// The fork changes b.txt, but the parent's b.txt changed since: refused.
	e.callAt(fork.ID, ff.Folder, func() { os.WriteFile(filepath.Join(ff.Folder, "b.txt"), []byte("fork bee\n"), 0o644) })
	e.write("b.txt", []string{"parent bee\n"})()
	if _, err := e.rec.ApplyFork(e.ctx, fork.ID); !errors.Is(err, checkpoint.ErrConflict) || !strings.Contains(err.Error(), "b.txt") {
		t.Fatalf("apply over a parent's change: %v", err)
	}
	if e.read("b.txt") != "parent bee\n" {
		t.Fatal("a refused apply changed b.txt")
	}
}
