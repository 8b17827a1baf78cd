package checkpoint

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// HunkContext is the number of unchanged lines shown around each hunk.
const HunkContext = 3

// ReviewState is where a hunk stands in the person's review.
type ReviewState string

const (
	Unreviewed ReviewState = "unreviewed"
	Kept       ReviewState = "kept"
	Reverted   ReviewState = "reverted"
)

// ChangeAuthor is who made a change (Change.By).
type ChangeAuthor string

// Change authors.
const (
	ByAgent   ChangeAuthor = "agent"   // a tool call
	ByOutside ChangeAuthor = "outside" // the person or another program, between calls
	ByPerson  ChangeAuthor = "person"  // a restore or a hunk revert the person asked for
)

// Hunk is one hunk (unified diff, HunkContext lines of context) of the
// change a row made to a text file. Its name — (Seq, Path, Hunk) — is
// stable: the hunks of a change are computed from its stored before and
// after contents, the same way every time. The JSON is the contract of
// `loopdesk sessions changes ID --hunks --json`.
type Hunk struct {
	Seq      int64        `json:"seq"`
	Path     string       `json:"path"`
	Hunk     int          `json:"hunk"` // from 1 within Seq and Path
	OldStart int          `json:"old_start"`
	OldLines int          `json:"old_lines"`
	NewStart int          `json:"new_start"`
	NewLines int          `json:"new_lines"`
	State    ReviewState  `json:"state"`
	Patch    string       `json:"patch"`
	By       ChangeAuthor `json:"-"`

	old, new []string // the hunk's lines before and after, context included
	change   changeRow
	undoneBy int64 // the restore row that put its file back to before the change (0: none)
}

// byOf says who made the changes of a capture, from its call id: captures
// the app makes for itself carry a prefix ("outside:", "restore:", "hunk:").
func byOf(callID string) ChangeAuthor {
	switch {
	case strings.HasPrefix(callID, "outside:"):
		return ByOutside
	case strings.HasPrefix(callID, "restore:"), strings.HasPrefix(callID, "hunk:"):
		return ByPerson
	}
	return ByAgent
}

// Hunks returns the hunks of every text-file change recorded on sessionID's
// rows, by seq, path and number, each with its review state. Changes made by
// the person (restores, hunk reverts, outside edits) count as kept: only the
// agent's hunks wait for review. A hunk whose file a later restore put back to
// before its row counts as reverted: the session's own restore undid it. Binary files, folders, links, mode-only
// changes and contents not kept (over MaxContent) have no hunks.
func (r *Recorder) Hunks(ctx context.Context, sessionID string) ([]Hunk, error) {
	out, err := r.hunks(ctx, sessionID, `c.session_id = ? AND c.seq > 0`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("hunks of session %s: %w", sessionID, err)
	}
	return out, nil
}

// Unreviewed returns the agent's hunks of sessionID nobody kept or reverted yet.
func (r *Recorder) Unreviewed(ctx context.Context, sessionID string) ([]Hunk, error) {
	all, err := r.Hunks(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []Hunk{}
	for _, h := range all {
		if h.State == Unreviewed {
			out = append(out, h)
		}
	}
	return out, nil
}

func (r *Recorder) hunks(ctx context.Context, sessionID, where string, args ...any) ([]Hunk, error) {
	if _, err := r.db.GetSession(ctx, sessionID); err != nil {
		return nil, err
	}
	rows, err := queryChanges(ctx, r.sql, where, args...)
	if err != nil {
		return nil, err
	}
	states, err := r.reviews(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	restores, err := r.restores(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := []Hunk{}
	// Two changes of one path on one row (outside edits found by two calls of one turn)
	// number their hunks on from each other, so (seq, path, hunk) stays one hunk.
	numbered := map[reviewKey]int{}
	for _, row := range rows {
		k := reviewKey{seq: row.Seq, path: row.Path}
		hs, err := r.hunksOf(ctx, row, numbered[k])
		if err != nil {
			return nil, err
		}
		numbered[k] += len(hs)
		for _, h := range hs {
			h.State = Unreviewed
			if h.By != ByAgent {
				h.State = Kept
			}
			if s, ok := states[reviewKey{h.Seq, h.Path, h.Hunk}]; ok {
				h.State = s
			}
			if h.By == ByAgent && h.State == Unreviewed {
				if h.undoneBy = undoneBy(restores, h.Seq, h.Path); h.undoneBy > 0 {
					h.State = Reverted
				}
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// hunksOf diffs one change, numbering its hunks from from+1. Sides that are
// not text files it can read (absent counts as empty) give no hunks.
func (r *Recorder) hunksOf(ctx context.Context, row changeRow, from int) ([]Hunk, error) {
	a, okA, err := r.text(ctx, row.Before)
	if err != nil || !okA {
		return nil, err
	}
	b, okB, err := r.text(ctx, row.After)
	if err != nil || !okB {
		return nil, err
	}
	ops := diffLines(a, b)
	var out []Hunk
	for i, s := range spans(ops, HunkContext) {
		old, new := sides(ops, s, a, b)
		out = append(out, Hunk{Seq: row.Seq, Path: row.Path, Hunk: from + i + 1,
			OldStart: s.oldStart, OldLines: s.oldLines, NewStart: s.newStart, NewLines: s.newLines,
			Patch: patch(ops, s, a, b), By: byOf(row.callID), old: old, new: new, change: row})
	}
	return out, nil
}

// text reads a state as lines: absent is no lines; ok is false for what has
// no line diff (folders, links, binary, content not kept).
func (r *Recorder) text(ctx context.Context, e *Entry) ([]string, bool, error) {
	if e == nil {
		return nil, true, nil
	}
	if e.Kind != KindFile || !e.Stored {
		return nil, false, nil
	}
	data, err := getBlob(ctx, r.sql, e.SHA256, r.opts.MaxContent)
	if err != nil {
		return nil, false, err
	}
	if isBinary(data) {
		return nil, false, nil
	}
	return splitLines(data), true, nil
}

// restoreRow is what a restore row put back: the paths it restored to their state before
// row to.
type restoreRow struct {
	seq, to int64
	paths   []string
}

// restores reads the session's restore rows, in order.
func (r *Recorder) restores(ctx context.Context, sessionID string) ([]restoreRow, error) {
	var out []restoreRow
	err := eachRow(ctx, r.sql, func(rows *sql.Rows) error {
		var rr restoreRow
		var payload string
		if err := rows.Scan(&rr.seq, &payload); err != nil {
			return err
		}
		var p store.RestorePayload
		if err := json.Unmarshal([]byte(payload), &p); err != nil {
			return fmt.Errorf("restore row %d: %w", rr.seq, err)
		}
		rr.to = p.ToSeq
		for _, x := range p.Restored {
			rr.paths = append(rr.paths, x.Path)
		}
		out = append(out, rr)
		return nil
	}, `SELECT seq, payload FROM chunks WHERE session_id = ? AND kind = ? ORDER BY seq`, sessionID, string(store.KindRestore))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// undoneBy returns the first restore row after seq that put pth (or a folder holding it)
// back to its state before a row at or before seq: the change seq made to pth is undone.
// 0 when none did.
func undoneBy(restores []restoreRow, seq int64, pth string) int64 {
	for _, rr := range restores {
		if rr.seq <= seq || rr.to > seq {
			continue
		}
		for _, p := range rr.paths {
			if p == pth || strings.HasPrefix(pth, p+"/") {
				return rr.seq
			}
		}
	}
	return 0
}

type reviewKey struct {
	seq  int64
	path string
	hunk int
}

func (r *Recorder) reviews(ctx context.Context, sessionID string) (map[reviewKey]ReviewState, error) {
	out := map[reviewKey]ReviewState{}
	err := eachRow(ctx, r.sql, func(rows *sql.Rows) error {
		var k reviewKey
		var s ReviewState
		if err := rows.Scan(&k.seq, &k.path, &k.hunk, &s); err != nil {
			return err
		}
		out[k] = s
		return nil
	}, `SELECT seq, path, hunk, state FROM cp_reviews WHERE session_id = ?`, sessionID)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// findHunk returns hunk n of the change row seq made to pth.
func (r *Recorder) findHunk(ctx context.Context, sessionID string, seq int64, pth string, n int) (Hunk, error) {
	pth = path.Clean(strings.TrimPrefix(pth, "./"))
	hs, err := r.hunks(ctx, sessionID, `c.session_id = ? AND c.seq = ? AND ch.path = ?`, sessionID, seq, pth)
	if err != nil {
		return Hunk{}, err
	}
	if len(hs) == 0 {
		return Hunk{}, fmt.Errorf("%w: row %d changed no text file %s", ErrNotFound, seq, pth)
	}
	for _, h := range hs {
		if h.Hunk == n {
			return h, nil
		}
	}
	return Hunk{}, fmt.Errorf("%w: row %d changed %s in %d hunk(s), not %d", ErrNotFound, seq, pth, len(hs), n)
}

// Keep marks hunk n of the change row seq made to pth as reviewed and kept.
// Keeping a hunk already reverted is refused (ErrReviewed): the revert is a
// row of its own; undo it with a restore.
func (r *Recorder) Keep(ctx context.Context, sessionID string, seq int64, pth string, n int) (Hunk, error) {
	h, err := r.findHunk(ctx, sessionID, seq, pth, n)
	if err == nil && h.State == Reverted {
		err = fmt.Errorf("%w: it was reverted", ErrReviewed)
	}
	if err == nil {
		err = r.db.Tx(ctx, func(tx *sql.Tx) error {
			return setReview(ctx, tx, sessionID, h, Kept, 0, r.opts.Now().UnixMilli())
		})
	}
	if err != nil {
		return Hunk{}, fmt.Errorf("keep hunk %d of %s at row %d: %w", n, pth, seq, err)
	}
	h.State = Kept
	return h, nil
}

// ErrReviewed: the hunk was already reverted.
var ErrReviewed = errors.New("hunk already reviewed")

func setReview(ctx context.Context, q queryer, sessionID string, h Hunk, s ReviewState, noteSeq, now int64) error {
	_, err := q.ExecContext(ctx, `INSERT INTO cp_reviews(session_id, seq, path, hunk, state, note_seq, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session_id, seq, path, hunk) DO UPDATE SET
		state = excluded.state, note_seq = excluded.note_seq, created_at = excluded.created_at`,
		sessionID, h.Seq, h.Path, h.Hunk, string(s), noteSeq, now)
	return err
}

var _ queryer = (*sql.Tx)(nil)
