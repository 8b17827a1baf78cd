package checkpoint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// numbered is n lines "line 1\n" .. "line n\n".
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return out
}

func (e *env) write(rel string, lines []string) func() {
	return func() {
		e.t.Helper()
		if err := os.WriteFile(filepath.Join(e.dir, rel), []byte(strings.Join(lines, "")), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// threeHunks: a 30-line file whose lines 3, 15 and 27 a call rewrites.
func threeHunks(t *testing.T) (*env, int64, []string) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{"a.txt": strings.Join(numbered(30), "")})
	after := numbered(30)
	after[2], after[14], after[26] = "THREE\n", "FIFTEEN\n", "TWENTY-SEVEN\n"
	seq, _ := e.call(e.write("a.txt", after))
	return e, seq, after
}

func TestHunksOfAChange(t *testing.T) {
	e, seq, _ := threeHunks(t)
	hs, err := e.rec.Hunks(e.ctx, e.sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 3 {
		t.Fatalf("want 3 hunks, got %d: %+v", len(hs), hs)
	}
	want := []struct{ os, ol int }{{1, 6}, {12, 7}, {24, 7}}
	for i, h := range hs {
		if h.Seq != seq || h.Path != "a.txt" || h.Hunk != i+1 || h.State != checkpoint.Unreviewed ||
			h.OldStart != want[i].os || h.OldLines != want[i].ol || h.NewStart != want[i].os || h.NewLines != want[i].ol {
			t.Errorf("hunk %d: %+v", i+1, h)
		}
	}
	if !strings.HasPrefix(hs[1].Patch, "@@ -12,7 +12,7 @@\n line 12\n") || !strings.Contains(hs[1].Patch, "\n-line 15\n+FIFTEEN\n") {
		t.Errorf("patch of hunk 2:\n%s", hs[1].Patch)
	}
	b, _ := json.Marshal(hs[0])
	var m map[string]any
	json.Unmarshal(b, &m)
	keys := []string{"seq", "path", "hunk", "old_start", "old_lines", "new_start", "new_lines", "state", "patch"}
	if len(m) != len(keys) {
		t.Errorf("JSON fields: %s", b)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
}

func TestRevertOneHunkOfThree(t *testing.T) {
	e, seq, after := threeHunks(t)
	res, err := e.rec.RevertHunk(e.ctx, e.sid, seq, "a.txt", 2, "")
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{}, after...)
	want[14] = "line 15\n"
	if got := e.read("a.txt"); got != strings.Join(want, "") {
		t.Fatalf("after revert:\n%s", got)
	}
	if res.FromLine != 12 || res.ToLine != 18 || res.NoteSeq != seq+1 {
		t.Errorf("result: %+v", res)
	}
	rows, _ := e.db.Chunks(e.ctx, e.sid)
	last := rows[len(rows)-1]
	var note store.NotePayload
	json.Unmarshal(last.Payload, &note)
	if last.Kind != store.KindNote || note.Source != "hunk_revert" || !strings.Contains(note.Text, "a.txt: lines 12-18") ||
		!strings.Contains(note.Text, "+FIFTEEN") {
		t.Fatalf("note row: %s %s", last.Kind, last.Payload)
	}
	framed, err := store.NoteText(last)
	if err != nil || !strings.HasPrefix(framed, store.NotePrefix) {
		t.Fatalf("framed note: %q %v", framed, err)
	}
	hs, _ := e.rec.Hunks(e.ctx, e.sid)
	states := ""
	for _, h := range hs {
		states += fmt.Sprintf("%d/%s/%d:%s ", h.Seq, h.Path, h.Hunk, h.State)
	}
	// The revert's own change is the person's, on the note row: kept.
	wantStates := fmt.Sprintf("%d/a.txt/1:unreviewed %d/a.txt/2:reverted %d/a.txt/3:unreviewed %d/a.txt/1:kept ", seq, seq, seq, seq+1)
	if states != wantStates {
		t.Errorf("states: %s, want %s", states, wantStates)
	}
	if _, err := e.rec.RevertHunk(e.ctx, e.sid, seq, "a.txt", 2, ""); !errors.Is(err, checkpoint.ErrReviewed) {
		t.Errorf("second revert: %v", err)
	}
	// The revert is a change like any other: the whole call can still be restored.
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq}); err != nil {
		t.Fatal(err)
	}
	if got := e.read("a.txt"); got != strings.Join(numbered(30), "") {
		t.Fatalf("after restore:\n%s", got)
	}
}

func TestRevertHunkFollowsLinesThatMoved(t *testing.T) {
	e, seq, after := threeHunks(t)
	// The person adds two lines at the top: hunk 3 now sits two lines lower.
	moved := append([]string{"new a\n", "new b\n"}, after...)
	e.write("a.txt", moved)()
	if _, err := e.rec.RevertHunk(e.ctx, e.sid, seq, "a.txt", 3, ""); err != nil {
		t.Fatal(err)
	}
	moved[26+2] = "line 27\n"
	if got := e.read("a.txt"); got != strings.Join(moved, "") {
		t.Fatalf("after revert:\n%s", got)
	}
}

func TestRevertHunkConflict(t *testing.T) {
	e, seq, after := threeHunks(t)
	edited := append([]string{}, after...)
	edited[15] = "the person's line 16\n" // inside hunk 2 (lines 12-18)
	e.write("a.txt", edited)()
	_, err := e.rec.RevertHunk(e.ctx, e.sid, seq, "a.txt", 2, "")
	var ce *checkpoint.HunkConflictError
	if !errors.As(err, &ce) || !errors.Is(err, checkpoint.ErrConflict) || fmt.Sprint(ce.Lines) != "[16]" ||
		!strings.Contains(err.Error(), "a.txt line(s) 16") {
		t.Fatalf("want a conflict on line 16, got %v", err)
	}
	if got := e.read("a.txt"); got != strings.Join(edited, "") {
		t.Fatalf("a refused revert changed the file:\n%s", got)
	}
	rows, _ := e.db.Chunks(e.ctx, e.sid)
	if rows[len(rows)-1].Kind == store.KindNote {
		t.Fatal("a refused revert added a note")
	}
	// Hunk 1 does not touch line 16: it still reverts.
	if _, err := e.rec.RevertHunk(e.ctx, e.sid, seq, "a.txt", 1, ""); err != nil {
		t.Fatal(err)
	}
}

func TestRevertHunkOfCreatedFileRemovesIt(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{"keep.txt": "x\n"})
	seq, _ := e.call(e.write("new.txt", []string{"a\n", "b\n"}))
	if _, err := e.rec.RevertHunk(e.ctx, e.sid, seq, "new.txt", 1, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt still there: %v", err)
	}
}

func TestKeepAndUnreviewed(t *testing.T) {
	e, seq, _ := threeHunks(t)
	if _, err := e.rec.Keep(e.ctx, e.sid, seq, "a.txt", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.rec.Keep(e.ctx, e.sid, seq, "a.txt", 4); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("keep hunk 4 of 3: %v", err)
	}
	// Review state lives in the database: a restart keeps it.
	e.reopen()
	un, err := e.rec.Unreviewed(e.ctx, e.sid)
	if err != nil || len(un) != 2 || un[0].Hunk != 2 || un[1].Hunk != 3 {
		t.Fatalf("unreviewed: %+v %v", un, err)
	}
	// And an export and an import keep it too.
	var buf bytes.Buffer
	if err := checkpoint.Export(e.ctx, e.db, e.sid, &buf, true); err != nil {
		t.Fatal(err)
	}
	imp, err := checkpoint.Import(e.ctx, e.db, &buf)
	if err != nil {
		t.Fatal(err)
	}
	un, err = e.rec.Unreviewed(e.ctx, imp.ID)
	if err != nil || len(un) != 2 || un[0].Hunk != 2 || un[1].Hunk != 3 {
		t.Fatalf("unreviewed after export and import: %+v %v", un, err)
	}
}

func TestOutsideEditsAttributed(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, map[string]string{"a.txt": "one\n"})
	seq1, _ := e.call(e.write("a.txt", []string{"one\n", "agent\n"}))
	e.write("a.txt", []string{"one\n", "agent\n", "person\n"})() // between calls
	seq2, _ := e.call(e.write("b.txt", []string{"b\n"}))
	cs, err := e.rec.Changes(e.ctx, e.sid)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, c := range cs {
		got += fmt.Sprintf("%d %s %s %s\n", c.Seq, c.Path, c.Change, c.By)
	}
	want := fmt.Sprintf("%d a.txt modified agent\n%d a.txt modified outside\n%d b.txt created agent\n", seq1, seq2-1, seq2)
	if got != want {
		t.Fatalf("changes:\n%s\nwant:\n%s", got, want)
	}
	// The person's lines are not the agent's to review.
	un, _ := e.rec.Unreviewed(e.ctx, e.sid)
	if len(un) != 2 {
		t.Fatalf("unreviewed: %+v", un)
	}
	// A restore still treats the person's edit as a conflict.
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq1}); !errors.Is(err, checkpoint.ErrConflict) {
		t.Fatalf("restore over an outside edit: %v", err)
	}
}

// A restore to before the row that made a change undoes that change's hunks: they are no
// longer waiting for review, and reverting one says the restore undid it already, rather
// than blaming changes made outside the session.
func TestRestoreUndoesTheHunksOfTheRowsItRestored(t *testing.T) {
	e, seq, _ := threeHunks(t)
	created, _ := e.call(e.write("new.txt", []string{"a\n", "b\n"}))
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: created}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt after the restore: %v", err)
	}
	un, err := e.rec.Unreviewed(e.ctx, e.sid)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, h := range un {
		left = append(left, fmt.Sprintf("%d:%s:%d", h.Seq, h.Path, h.Hunk))
	}
	// a.txt's row came before the restore's point: its hunks still wait.
	if want := fmt.Sprintf("%d:a.txt:1 %d:a.txt:2 %d:a.txt:3", seq, seq, seq); strings.Join(left, " ") != want {
		t.Fatalf("unreviewed after the restore: %v, want %s", left, want)
	}
	_, err = e.rec.RevertHunk(e.ctx, e.sid, created, "new.txt", 1, "")
	if !errors.Is(err, checkpoint.ErrReviewed) || errors.Is(err, checkpoint.ErrConflict) || !strings.Contains(err.Error(), "restore") {
		t.Fatalf("revert of a hunk the restore undid: %v", err)
	}
	// Restoring only a.txt to before its row undoes a.txt's hunks too.
	if _, err := e.rec.Restore(e.ctx, e.sid, checkpoint.RestoreOptions{ToSeq: seq, Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if un, _ := e.rec.Unreviewed(e.ctx, e.sid); len(un) != 0 {
		t.Fatalf("unreviewed after restoring a.txt: %+v", un)
	}
}
