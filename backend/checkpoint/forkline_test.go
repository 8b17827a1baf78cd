package checkpoint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A fork with files of a fork gets the folder as the forked session's line
// had it at the chosen row: the changes of its rows inherited from the
// session it was forked from (recorded there) count as much as its own, up to
// each fork point, whether B shares A's folder (a plain fork, or a version
// made by edit or regenerate) or has its own copy, in a repository or not.
func TestForkWithFilesOfAFork(t *testing.T) {
	for _, tc := range []struct {
		name           string
		git, ownFolder bool
	}{
		{"plain folder, B shares A's", false, false},
		{"plain folder, B has its own", false, true},
		{"git, B shares A's", true, false},
		{"git, B has its own", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, checkpoint.Options{}, map[string]string{"keep.txt": "kept\n"})
			if tc.git {
				git(t, e.dir, "init", "-q", "-b", "main")
				git(t, e.dir, "add", "-A")
				git(t, e.dir, "commit", "-qm", "start")
			}
			forks := filepath.Join(t.TempDir(), "forks")
			a1 := e.callAt(e.sid, e.dir, writeFile(t, e.dir, "a.txt", "a one\n"))
			a2 := e.callAt(e.sid, e.dir, writeFile(t, e.dir, "a.txt", "a two\n"))
			b := forkWithFiles(t, e, e.sid, a2, forks, tc.ownFolder)
			if tc.git || tc.ownFolder {
				// A goes on after B's fork point, in a folder B's line does
				// not read: none of it may reach B's forks. (A full copy of a
				// folder B shares holds it; docs/checkpoints.md, Limits.)
				e.callAt(e.sid, e.dir, writeFile(t, e.dir, "a.txt", "a three, after the fork\n"))
			}
			nb := e.callAt(b.ID, b.Workspace, writeFile(t, b.Workspace, "b.txt", "bee\n"))
			e.callAt(b.ID, b.Workspace, writeFile(t, b.Workspace, "b.txt", "bee, later\n"))

			c := forkWithFiles(t, e, b.ID, nb, forks, true)
			sameFiles(t, "C, B at b.txt's row", c.Workspace, map[string]string{"keep.txt": "kept\n", "a.txt": "a two\n", "b.txt": "bee\n"})
			d := forkWithFiles(t, e, b.ID, a1, forks, true)
			sameFiles(t, "D, B at the inherited row of a.txt's first write", d.Workspace, map[string]string{"keep.txt": "kept\n", "a.txt": "a one\n"})

			// Three sessions up: E forks C at a row C inherited, through B, from A.
			e.callAt(c.ID, c.Workspace, writeFile(t, c.Workspace, "c.txt", "sea\n"))
			eFork := forkWithFiles(t, e, c.ID, a1, forks, true)
			sameFiles(t, "E, C at A's row", eFork.Workspace, map[string]string{"keep.txt": "kept\n", "a.txt": "a one\n"})
		})
	}
}

// forkWithFiles forks sid at seq; with own, in a folder of its own, as
// "fork with its own copy of the folder" does. Workspace is the fork's folder.
func forkWithFiles(t *testing.T, e *env, sid string, seq int64, forks string, own bool) store.Session {
	t.Helper()
	fork, err := e.db.Fork(e.ctx, sid, seq)
	if err != nil {
		t.Fatal(err)
	}
	if !own {
		return fork
	}
	ff, err := e.rec.MakeForkFolder(e.ctx, sid, seq, fork.ID, forks)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.SetWorkspace(e.ctx, fork.ID, ff.Folder); err != nil {
		t.Fatal(err)
	}
	fork.Workspace = ff.Folder
	return fork
}

func writeFile(t *testing.T, dir, p, body string) func() {
	return func() {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// sameFiles checks the files below dir (git's own .git left out) are want.
func sameFiles(t *testing.T, what, dir string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() == ".git" { // a worktree's .git is a file
			return nil
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %s is %q, want %q", what, p, got[p], w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s is there (%q), want it absent", what, p, g)
		}
	}
}
