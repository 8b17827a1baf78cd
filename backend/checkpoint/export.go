package checkpoint

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Export lines added to store's session export (docs/checkpoints.md).
type (
	exportChange struct {
		Type   string     `json:"type"` // "change"
		Seq    int64      `json:"seq"`
		CallID string     `json:"call_id"`
		RunID  string     `json:"run_id"`
		Path   string     `json:"path"`
		Change ChangeKind `json:"change"`
		Before *Entry     `json:"before"`
		After  *Entry     `json:"after"`
	}
	// exportReview is a hunk's review state (cp_reviews): kept or reverted, and the note row
	// a revert added.
	exportReview struct {
		Type    string `json:"type"` // "review"
		Seq     int64  `json:"seq"`
		Path    string `json:"path"`
		Hunk    int    `json:"hunk"`
		State   string `json:"state"`
		NoteSeq int64  `json:"note_seq"`
	}
	exportBlob struct {
		Type    string `json:"type"` // "blob"
		SHA256  string `json:"sha256"`
		Size    int64  `json:"size"`
		Deflate string `json:"deflate"` // base64 of the raw DEFLATE stream
	}
)

// Export writes the session like store's Export, followed by one "change"
// line per recorded change and, with contents, one "blob" line per file
// content those changes refer to (which can be large).
func Export(ctx context.Context, db *store.DB, sessionID string, w io.Writer, contents bool) error {
	return db.ExportWith(ctx, sessionID, w, store.ExportOptions{Extra: func(ctx context.Context, q store.Querier, id string, emit func(any) error) error {
		rows, err := queryChanges(ctx, q, `c.session_id = ? AND c.seq > 0`, id)
		if err != nil {
			return err
		}
		if err := exportReviews(ctx, q, id, emit); err != nil {
			return err
		}
		shas := map[string]bool{}
		var order []string
		for _, r := range rows {
			if err := emit(exportChange{Type: "change", Seq: r.Seq, CallID: r.callID, RunID: r.runID, Path: r.Path,
				Change: r.Change.Change, Before: r.Before, After: r.After}); err != nil {
				return err
			}
			for _, e := range []*Entry{r.Before, r.After} {
				if e != nil && e.Stored && !shas[e.SHA256] {
					shas[e.SHA256] = true
					order = append(order, e.SHA256)
				}
			}
		}
		if !contents {
			return nil
		}
		for _, sha := range order {
			data, err := getBlob(ctx, q, sha, MaxContent)
			if err != nil {
				return err
			}
			z, err := deflate(data)
			if err != nil {
				return err
			}
			if err := emit(exportBlob{Type: "blob", SHA256: sha, Size: int64(len(data)), Deflate: base64.StdEncoding.EncodeToString(z)}); err != nil {
				return err
			}
		}
		return nil
	}})
}

// Import reads an Export (with or without contents, or a plain store
// export) into a new session. Change records keep their rows and are
// attached to the new session's folder (its workspace as exported); a
// content the file did not carry, or that does not match its hash, is
// marked not stored, so a restore says it cannot bring it back.
func Import(ctx context.Context, db *store.DB, r io.Reader) (store.Session, error) {
	return db.ImportWith(ctx, r, store.ImportOptions{Types: []string{"change", "blob", "review"},
		Extra: func(ctx context.Context, q store.Querier, s store.Session, lines []json.RawMessage) error {
			return importLines(ctx, q, s, lines)
		}})
}

func importLines(ctx context.Context, q store.Querier, s store.Session, lines []json.RawMessage) error {
	var changes []exportChange
	have := map[string]bool{}
	for i, l := range lines {
		var probe struct{ Type string }
		json.Unmarshal(l, &probe)
		if probe.Type == "review" {
			if err := importReview(ctx, q, s, l); err != nil {
				return fmt.Errorf("%w: review line %d: %v", store.ErrBadImport, i+1, err)
			}
			continue
		}
		if probe.Type == "blob" {
			var b exportBlob
			if err := json.Unmarshal(l, &b); err != nil {
				return fmt.Errorf("%w: blob line %d: %v", store.ErrBadImport, i+1, err)
			}
			z, err := base64.StdEncoding.DecodeString(b.Deflate)
			if err != nil {
				return fmt.Errorf("%w: blob %s: %v", store.ErrBadImport, short(b.SHA256), err)
			}
			data, err := inflate(z, MaxContent)
			if err != nil || int64(len(data)) > MaxContent || checkHash(data, b.SHA256) != nil {
				continue // damaged or forged: treated as not carried
			}
			if err := putBlob(ctx, q, b.SHA256, data); err != nil {
				return err
			}
			have[b.SHA256] = true
			continue
		}
		var c exportChange
		if err := json.Unmarshal(l, &c); err != nil || c.Path == "" || c.Seq < 1 {
			return fmt.Errorf("%w: change line %d: %s", store.ErrBadImport, i+1, l)
		}
		changes = append(changes, c)
	}
	stored := func(e *Entry) {
		if e == nil || !e.Stored {
			return
		}
		if !have[e.SHA256] {
			var one int
			have[e.SHA256] = q.QueryRowContext(ctx, `SELECT 1 FROM cp_blobs WHERE sha256 = ?`, e.SHA256).Scan(&one) == nil
		}
		e.Stored = have[e.SHA256]
	}
	ids := map[string]int64{}
	for _, c := range changes {
		key := fmt.Sprintf("%d\x00%s", c.Seq, c.CallID)
		id, ok := ids[key]
		if !ok {
			res, err := q.ExecContext(ctx, `INSERT INTO cp_captures(session_id, run_id, call_id, root, seq, created_at) VALUES (?, '', ?, ?, ?, 0)`,
				s.ID, c.CallID, s.Workspace, c.Seq)
			if err != nil {
				return err
			}
			id, _ = res.LastInsertId()
			ids[key] = id
		}
		stored(c.Before)
		stored(c.After)
		if err := insertChanges(ctx, q, id, []delta{{path: c.Path, old: c.Before, new: c.After, change: c.Change}}); err != nil {
			return fmt.Errorf("%w: change of %s at row %d: %v", store.ErrBadImport, c.Path, c.Seq, err)
		}
	}
	return nil
}

// exportReviews emits the session's hunk review states, so a kept or reverted hunk is still
// marked so after an export and an import.
func exportReviews(ctx context.Context, q store.Querier, sessionID string, emit func(any) error) error {
	var all []exportReview
	err := eachRow(ctx, q, func(rows *sql.Rows) error {
		r := exportReview{Type: "review"}
		if err := rows.Scan(&r.Seq, &r.Path, &r.Hunk, &r.State, &r.NoteSeq); err != nil {
			return err
		}
		all = append(all, r)
		return nil
	}, `SELECT seq, path, hunk, state, note_seq FROM cp_reviews WHERE session_id = ? ORDER BY seq, path, hunk`, sessionID)
	if err != nil {
		return err
	}
	for _, r := range all {
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

func importReview(ctx context.Context, q store.Querier, s store.Session, line json.RawMessage) error {
	var r exportReview
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	if r.Seq < 1 || r.Path == "" || r.Hunk < 1 || (r.State != "kept" && r.State != "reverted") {
		return fmt.Errorf("%s", line)
	}
	_, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO cp_reviews(session_id, seq, path, hunk, state, note_seq, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 0)`, s.ID, r.Seq, r.Path, r.Hunk, r.State, r.NoteSeq)
	return err
}
