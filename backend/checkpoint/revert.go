package checkpoint

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// NoteSourceHunkRevert is the Source of the note row a hunk revert adds.
const NoteSourceHunkRevert = "hunk_revert"

// HunkConflictError: the lines a hunk revert would replace changed since the
// row made them. Lines are the hunk's lines (numbered as the row left the
// file) that differ now. Nothing was changed.
type HunkConflictError struct {
	Seq   int64
	Path  string
	Hunk  int
	Lines []int
}

func (e *HunkConflictError) Error() string {
	return fmt.Sprintf("%v: %s line(s) %s (hunk %d of row %d) changed since that row; nothing was reverted",
		ErrConflict, e.Path, lineList(e.Lines), e.Hunk, e.Seq)
}

func (e *HunkConflictError) Unwrap() error { return ErrConflict }

// lineList writes 3,4,5,9 as "3-5, 9".
func lineList(ls []int) string {
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(ls[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ls[i], ls[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// RevertedHunk is what RevertHunk did. NoteSeq is its note row (the
// revert's own file change is recorded on it); FromLine..ToLine are the
// lines of the current file that went back (ToLine < FromLine when the
// hunk only added lines and they are gone now).
type RevertedHunk struct {
	Hunk     Hunk
	NoteSeq  int64
	FromLine int
	ToLine   int
	Changes  []Change
}

// RevertHunk applies the reverse of hunk n of the change row seq made to
// pth to the file as it is now, and records it: a note row (store.KindNote,
// Source "hunk_revert") telling the model which lines of which file the
// person reverted, the file change on that row (undoable like any other),
// and the hunk's state "reverted". Errors: ErrBusy (a tool call is in
// flight), ErrNotFound (no such hunk), ErrReviewed (already reverted),
// *HunkConflictError (those lines changed since; nothing changed).
func (r *Recorder) RevertHunk(ctx context.Context, sessionID string, seq int64, pth string, n int, runID string) (RevertedHunk, error) {
	out, err := r.revertHunk(ctx, sessionID, seq, pth, n, runID)
	if err != nil {
		return out, fmt.Errorf("revert hunk %d of %s at row %d: %w", n, pth, seq, err)
	}
	return out, nil
}

func (r *Recorder) revertHunk(ctx context.Context, sessionID string, seq int64, pth string, n int, runID string) (RevertedHunk, error) {
	s, err := r.idleSession(ctx, sessionID)
	if err != nil {
		return RevertedHunk{}, err
	}
	h, err := r.findHunk(ctx, sessionID, seq, pth, n)
	if err != nil {
		return RevertedHunk{}, err
	}
	if h.undoneBy > 0 {
		return RevertedHunk{}, fmt.Errorf("%w: the restore at row %d put %s back to before row %d already", ErrReviewed, h.undoneBy, h.Path, h.Seq)
	}
	if h.State == Reverted {
		return RevertedHunk{}, fmt.Errorf("%w: it was reverted already", ErrReviewed)
	}
	rs, err := r.caughtUp(ctx, s.Workspace, sessionID, runID, "hunk")
	if err != nil {
		return RevertedHunk{}, err
	}
	defer rs.release()
	res := RevertedHunk{Hunk: h}
	lines, err := r.reverse(ctx, rs, h, &res)
	if err != nil {
		return res, err
	}
	if err := r.writeLines(ctx, rs, h, lines); err != nil {
		return res, err
	}
	rows, err := r.db.Append(ctx, sessionID, runID, store.NewChunk{Kind: store.KindNote,
		Payload: store.NotePayload{Source: NoteSourceHunkRevert, Text: revertNote(res)}})
	if err != nil {
		return res, err
	}
	res.NoteSeq = rows[0].Seq
	ds, err := r.refresh(ctx, rs, h.Path)
	if err != nil {
		return res, err
	}
	err = r.commit(ctx, rs, ds, func(tx *sql.Tx) error {
		if err := recordCapture(ctx, tx, sessionID, runID, fmt.Sprintf("hunk:%d", res.NoteSeq), rs.path, res.NoteSeq, r.opts.Now().UnixMilli(), ds); err != nil {
			return err
		}
		return setReview(ctx, tx, sessionID, h, Reverted, res.NoteSeq, r.opts.Now().UnixMilli())
	})
	res.Changes = personal(changesOf(ds, res.NoteSeq))
	res.Hunk.State = Reverted
	return res, err
}

// reverse returns the current file's lines with hunk h's new lines put back
// to its old ones, or a *HunkConflictError when any of those lines (or the
// gaps between them) changed since the row.
func (r *Recorder) reverse(ctx context.Context, rs *rootState, h Hunk, res *RevertedHunk) ([]string, error) {
	after, _, err := r.text(ctx, h.change.After)
	if err != nil {
		return nil, err
	}
	cur, err := currentLines(rs, h.Path)
	if err != nil {
		return nil, err
	}
	// Where each line the row left is now (-1: changed since), and which
	// gaps got new lines.
	at := make([]int, len(after)+1)
	inserted := make([]bool, len(after)+1)
	for i := range at {
		at[i] = -1
	}
	for _, o := range diffLines(after, cur) {
		switch o.kind {
		case ' ':
			at[o.a] = o.b
		case '+':
			inserted[o.a] = true
		}
	}
	at[len(after)] = len(cur)
	from, to := h.NewStart-1, h.NewStart-1+h.NewLines // 0-based [from, to) in after
	if h.NewLines == 0 {
		from, to = h.NewStart, h.NewStart
	}
	var bad []int // 1-based; lines added in a gap are named by the line before it
	for i := from; i < to; i++ {
		if i > from && inserted[i] && (len(bad) == 0 || bad[len(bad)-1] != i) {
			bad = append(bad, i)
		}
		if at[i] < 0 {
			bad = append(bad, i+1)
		}
	}
	if h.NewLines == 0 && inserted[from] {
		bad = append(bad, max(from, 1))
	}
	if len(bad) > 0 {
		return nil, &HunkConflictError{Seq: h.Seq, Path: h.Path, Hunk: h.Hunk, Lines: bad}
	}
	pos := at[from]
	if pos < 0 { // an empty range before a line changed since
		return nil, &HunkConflictError{Seq: h.Seq, Path: h.Path, Hunk: h.Hunk, Lines: []int{from + 1}}
	}
	res.FromLine, res.ToLine = pos+1, pos+len(h.old)
	out := append(append(append([]string{}, cur[:pos]...), h.old...), cur[pos+to-from:]...)
	return out, nil
}

// currentLines reads pth as it is now (absent: no lines).
func currentLines(rs *rootState, pth string) ([]string, error) {
	e := rs.cache[pth]
	if e == nil {
		return nil, nil
	}
	if e.Kind != KindFile {
		return nil, fmt.Errorf("%s is a %s now, not a file", pth, e.Kind)
	}
	data, err := rs.fsr.ReadFile(pth)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return splitLines(data), err
}

// writeLines puts lines into h's file through the folder's root. A file the
// row created that the revert empties is removed: it is back to absent.
func (r *Recorder) writeLines(ctx context.Context, rs *rootState, h Hunk, lines []string) error {
	cur := rs.cache[h.Path]
	if len(lines) == 0 && h.change.Before == nil {
		if cur == nil {
			return nil
		}
		return rs.fsr.Remove(h.Path)
	}
	mode := fs.FileMode(0o644)
	switch {
	case cur != nil:
		mode = cur.Mode
	case h.change.Before != nil:
		mode = h.change.Before.Mode
	}
	data := []byte(strings.Join(lines, ""))
	w, err := writeTemp(rs.fsr, h.Path, data, mode)
	if err != nil {
		return err
	}
	if err := syncAll([]pending{*w}); err != nil {
		rs.fsr.Remove(w.tmp)
		return err
	}
	if err := rs.fsr.Rename(w.tmp, h.Path); err != nil {
		rs.fsr.Remove(w.tmp)
		return err
	}
	return nil
}

// revertNote is what the model reads (framed by store.Frame) about a revert.
func revertNote(res RevertedHunk) string {
	h := res.Hunk
	var b strings.Builder
	fmt.Fprintf(&b, "The person reverted hunk %d of the change row %d made to %s: lines %d-%d as that row left them "+
		"are back to how they were before it", h.Hunk, h.Seq, h.Path, h.NewStart, h.NewStart+max(h.NewLines, 1)-1)
	if res.ToLine >= res.FromLine {
		fmt.Fprintf(&b, " (now lines %d-%d of the file)", res.FromLine, res.ToLine)
	}
	b.WriteString(". The reverted hunk, as it had been applied:\n")
	p := h.Patch
	if len(p) > 4000 {
		p = p[:4000] + "\n[... cut]\n"
	}
	b.WriteString(p)
	b.WriteString("Do not re-apply these lines unless asked to; read the file again before editing it.")
	return b.String()
}
