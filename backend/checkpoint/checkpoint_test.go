package checkpoint_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
)

var start = map[string]string{
	"a.txt":      "alpha\nx marks the spot\n",
	"b.bin":      "\x00\x01\x02\xff binary",
	"empty.txt":  "",
	"sub/c.txt":  "see\n",
	"keep.md":    "untouched\n",
	".gitignore": "*.log\n",
}

// The acceptance case: a shell command edits with sed -i, removes
// a file, creates one and changes a mode; after a restart every change is
// listed on the call's row and a restore brings the folder back byte for
// byte, and the restore itself can be undone.
func TestShellChangesRestoredAfterRestart(t *testing.T) {
	for _, opts := range []checkpoint.Options{{}, {NoWatch: true}} {
		e := newEnv(t, opts, start)
		before := snapshot(t, e.dir)
		seq, ch := e.call(e.sh(`sed -i 's/x marks/y marks/' a.txt && rm b.bin && printf 'new\n' > sub/new.txt && chmod 600 empty.txt && echo noise > debug.log`))
		want := "modified a.txt\ndeleted b.bin\nmode empty.txt\ncreated sub/new.txt\n"
		if got := summary(ch); got != want {
			t.Fatalf("NoWatch=%v: changes:\n%s\nwant:\n%s", opts.NoWatch, got, want)
		}
		after := snapshot(t, e.dir)
		before["debug.log"] = after["debug.log"] // ignored: never recorded, never touched
		e.reopen()
		got, err := e.rec.Changes(e.ctx, e.sid)
		if err != nil || summary(got) != want || got[0].Seq != seq {
			t.Fatalf("after restart: %v\n%s", err, summary(got))
		}
		if got[1].Size != int64(len(start["b.bin"])) || got[1].SHA256 == "" {
			t.Fatalf("a deleted file's entry describes its old content: %+v", got[1])
		}
		dry, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq, DryRun: true})
		if err != nil || len(dry.Restored) != 4 || !dry.DryRun {
			t.Fatalf("dry run: %+v %v", dry, err)
		}
		sameTree(t, after, snapshot(t, e.dir))
		p, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
		if err != nil {
			t.Fatal(err)
		}
		sameTree(t, before, snapshot(t, e.dir))
		if p.Seq <= seq || len(p.Changes) != 4 {
			t.Fatalf("restore row %d, its own changes:\n%s", p.Seq, summary(p.Changes))
		}
		// Undo the restore: back to the state after the command.
		e.reopen()
		if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: p.Seq}); err != nil {
			t.Fatal(err)
		}
		sameTree(t, after, snapshot(t, e.dir))
		e.close()
	}
}

// A file the person edited since the agent changed it is never silently
// overwritten: the restore names it and changes nothing, unless told.
func TestRestoreConflict(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	seq, _ := e.call(e.sh(`echo agent >> a.txt && echo agent > sub/c.txt`))
	writeTree(t, e.dir, map[string]string{"a.txt": "the person's own edit\n"})
	mid := snapshot(t, e.dir)
	_, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
	var ce *checkpoint.ConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0].Path != "a.txt" || ce.Files[0].By != "outside" {
		t.Fatalf("want a conflict naming a.txt, got %v", err)
	}
	sameTree(t, mid, snapshot(t, e.dir))
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq, Path: "sub/c.txt"}); err != nil {
		t.Fatalf("one file without conflict: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "sub/c.txt")); string(b) != start["sub/c.txt"] {
		t.Fatalf("sub/c.txt = %q", b)
	}
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq, Override: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "a.txt")); string(b) != start["a.txt"] {
		t.Fatalf("a.txt = %q", b)
	}
}

// Two sessions in one folder: restoring one names the other's later change.
func TestRestoreNamesOtherSession(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	seq, _ := e.call(e.sh(`echo one >> a.txt`))
	other, err := e.db.Fork(e.ctx, e.sid, seq)
	if err != nil {
		t.Fatal(err)
	}
	oseq, _ := e.callIn(other.ID, e.sh(`echo two >> a.txt`))
	p, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq, DryRun: true})
	if err != nil || len(p.Others) != 1 || p.Others[0].SessionID != other.ID || p.Others[0].Seq != oseq {
		t.Fatalf("dry run: %+v %v", p, err)
	}
	_, err = e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
	if err == nil || !strings.Contains(err.Error(), "session "+other.ID) {
		t.Fatalf("want a conflict naming session %s, got %v", other.ID, err)
	}
}

// Files over the content limit are recorded by hash; a restore says it
// cannot bring them back and leaves them.
func TestBigFilesRecordedWithoutContent(t *testing.T) {
	big := strings.Repeat("b", 3000)
	e := newEnv(t, checkpoint.Options{MaxContent: 1000}, map[string]string{"big.dat": big, "small.txt": "s"})
	seq, ch := e.call(e.sh(`echo more >> big.dat && echo t > small.txt`))
	if summary(ch) != "modified big.dat\nmodified small.txt\n" || ch[0].SHA256 == "" || ch[0].Size != 3005 {
		t.Fatalf("changes %+v", ch)
	}
	p, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
	if err != nil || len(p.Unrestorable) != 1 || p.Unrestorable[0] != "big.dat" || len(p.Restored) != 1 {
		t.Fatalf("restore: %+v %v", p, err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "big.dat")); len(b) != 3005 {
		t.Fatal("the big file was touched")
	}
}

// Symlinks are recorded as links; a folder swapped for a link to outside
// cannot make a restore write outside the folder.
func TestSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"f.txt": "outside file\n"})
	e := newEnv(t, checkpoint.Options{}, map[string]string{"d/f.txt": "inside\n"})
	before := snapshot(t, e.dir)
	seq, ch := e.call(e.sh(`rm -r d && ln -s ` + outside + ` d && ln -s /etc/passwd pw`))
	if summary(ch) != "modified d\ndeleted d/f.txt\ncreated pw\n" {
		t.Fatalf("changes:\n%s", summary(ch))
	}
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, e.dir))
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside file\n" {
		t.Fatalf("the file outside was changed: %q", b)
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Fatal(err)
	}
}

// File <-> folder swaps, empty files, and delete + re-create.
func TestSwapsAndNoOps(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{"x": "file x", "y/z.txt": "z", "same.txt": "same"})
	before := snapshot(t, e.dir)
	seq, ch := e.call(e.sh(`rm x && mkdir x && : > x/empty && rm -r y && echo y > y && rm same.txt && printf same > same.txt`))
	if summary(ch) != "modified x\ncreated x/empty\nmodified y\ndeleted y/z.txt\n" {
		t.Fatalf("changes:\n%s", summary(ch))
	}
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, e.dir))
}

// A restore into a folder that was moved away fails clearly.
func TestFolderGone(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	seq, _ := e.call(e.sh(`echo z >> a.txt`))
	if err := os.Rename(e.dir, e.dir+".moved"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(e.dir + ".moved") })
	_, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
	if !errors.Is(err, checkpoint.ErrFolderGone) || !strings.Contains(err.Error(), e.dir) {
		t.Fatalf("want ErrFolderGone naming the folder, got %v", err)
	}
}

// Fork with files: a new folder holding the files as they were at a row.
func TestCopyAt(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	first, _ := e.call(e.sh(`echo one > sub/one.txt`))
	atFirst := snapshot(t, e.dir)
	e.call(e.sh(`rm a.txt && echo two > sub/one.txt && mkdir -p deep/er && echo d > deep/er/d.txt`))
	dest := filepath.Join(t.TempDir(), "fork")
	skipped, err := e.rec.CopyAt(e.ctx, e.sid, first, dest)
	if err != nil || len(skipped) != 0 {
		t.Fatalf("copy: %v %v", skipped, err)
	}
	sameTree(t, atFirst, snapshot(t, dest))
	if _, err := e.rec.CopyAt(e.ctx, e.sid, first, dest); !errors.Is(err, checkpoint.ErrDestination) {
		t.Fatalf("copy into a non-empty folder: %v", err)
	}
}

// Prepare takes the baseline up front; the first call then records only
// its own changes, and what the person did before it is not charged to it.
func TestPrepare(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	if err := e.rec.Prepare(e.ctx, e.dir); err != nil {
		t.Fatal(err)
	}
	writeTree(t, e.dir, map[string]string{"person.txt": "typed by the person"})
	_, ch := e.call(e.sh(`echo agent > agent.txt`))
	if summary(ch) != "created agent.txt\n" {
		t.Fatalf("changes:\n%s", summary(ch))
	}
}

// A file the person already put back by hand is no conflict; the contents
// of both sides of a change are there for a diff.
func TestAlreadyRestoredAndContent(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	seq, ch := e.call(e.sh(`echo agent > a.txt && echo agent > sub/c.txt`))
	old, err := e.rec.Content(e.ctx, ch[0].Before)
	if err != nil || string(old) != start["a.txt"] {
		t.Fatalf("content before: %q %v", old, err)
	}
	if now, err := e.rec.Content(e.ctx, ch[0].After); err != nil || string(now) != "agent\n" {
		t.Fatalf("content after: %q %v", now, err)
	}
	writeTree(t, e.dir, map[string]string{"a.txt": start["a.txt"]})
	p, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq})
	if err != nil || len(p.Restored) != 1 || p.Restored[0].Path != "sub/c.txt" {
		t.Fatalf("restore: %+v %v", p, err)
	}
}
