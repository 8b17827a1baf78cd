package checkpoint_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
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
	if got := git(t, e.dir, "worktree", "list"); strings.Contains(got, "f1") {
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
