package checkpoint

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A fork (store.Fork) starts with copies of its parent's rows 1..ForkSeq but
// none of their change records: those stay with the session whose calls made
// them. So what a row changed is looked up along the fork's line: its own
// captures, then each ancestor's up to the lowest fork point below it. The
// records are read, never copied: a fork sees them as long as the session
// that made them exists (deleting it frees them, as it always did).

// lineSpan is the part of a session's line whose changes one session recorded:
// its captures on rows up to upTo (0: no bound, the session itself), made in
// folder root.
type lineSpan struct {
	sessionID string
	upTo      int64
	root      string
}

// maxLineage bounds the walk up a fork's parents (a guard against a cycle no
// store operation makes).
const maxLineage = 1000

// lineage is s's own span, then one per session it was forked from, nearest
// first. It stops at a child session (a task call's child holds none of its
// parent's rows), at a fork before row 1, and at a parent deleted since.
func (r *Recorder) lineage(ctx context.Context, s store.Session) ([]lineSpan, error) {
	out := []lineSpan{{sessionID: s.ID, root: filepath.Clean(s.Workspace)}}
	upTo := int64(-1)
	for len(out) < maxLineage && s.ParentID != "" && s.ParentCallID == "" {
		if upTo < 0 || s.ForkSeq < upTo {
			upTo = s.ForkSeq
		}
		if upTo <= 0 {
			break
		}
		p, err := r.db.GetSession(ctx, s.ParentID)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(out, lineSpan{sessionID: p.ID, upTo: upTo, root: filepath.Clean(p.Workspace)})
		s = p
	}
	return out, nil
}

// lineOf is lineage by session id.
func (r *Recorder) lineOf(ctx context.Context, sessionID string) ([]lineSpan, error) {
	s, err := r.db.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return r.lineage(ctx, s)
}

// spansWhere is the condition (for queryChanges) selecting the spans' linked
// changes; with byRoot each span's only in its own folder, which for a fork
// sharing its parent's folder is the same one, and for a fork with its own
// folder the folder it was copied from (same relative paths).
func spansWhere(spans []lineSpan, byRoot bool) (string, []any) {
	parts := make([]string, 0, len(spans))
	var args []any
	for _, sp := range spans {
		cond := `(c.session_id = ? AND c.seq > 0`
		args = append(args, sp.sessionID)
		if sp.upTo > 0 {
			cond += ` AND c.seq <= ?`
			args = append(args, sp.upTo)
		}
		if byRoot {
			cond += ` AND c.root = ?`
			args = append(args, sp.root)
		}
		parts = append(parts, cond+`)`)
	}
	return `(` + strings.Join(parts, ` OR `) + `)`, args
}
