package checkpoint

import (
	"context"
	"database/sql"
	"io/fs"
)

type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// eachRow runs query and hands each row to each, in order, stopping at the first error.
func eachRow(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, each func(*sql.Rows) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// loadCache reads what the database knows of root's tracked paths.
func loadCache(ctx context.Context, q queryer, root string) (map[string]*Entry, error) {
	out := map[string]*Entry{}
	err := eachRow(ctx, q, func(rows *sql.Rows) error {
		var p string
		var e Entry
		var mode uint32
		var ino int64
		if err := rows.Scan(&p, &e.Kind, &mode, &e.Size, &e.MtimeNS, &e.CtimeNS, &ino, &e.SHA256, &e.Target, &e.Stored); err != nil {
			return err
		}
		e.Mode, e.Ino = fs.FileMode(mode), uint64(ino)
		out[p] = &e
		return nil
	}, `SELECT path, kind, mode, size, mtime_ns, ctime_ns, ino, sha256, target, stored FROM cp_files WHERE root = ?`, root)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// saveDeltas stores the new contents and moves the cache to the new states.
func saveDeltas(ctx context.Context, tx *sql.Tx, root string, ds []delta) error {
	up, err := tx.PrepareContext(ctx, `INSERT INTO cp_files(root, path, kind, mode, size, mtime_ns, ctime_ns, ino, sha256, target, stored)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(root, path) DO UPDATE SET kind = excluded.kind, mode = excluded.mode, size = excluded.size,
		mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, ino = excluded.ino, sha256 = excluded.sha256,
		target = excluded.target, stored = excluded.stored`)
	if err != nil {
		return err
	}
	defer up.Close()
	for _, d := range ds {
		if d.data != nil {
			if err := putBlob(ctx, tx, d.new.SHA256, d.data); err != nil {
				return err
			}
		}
		if d.new == nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM cp_files WHERE root = ? AND path = ?`, root, d.path); err != nil {
				return err
			}
			continue
		}
		e := d.new
		if _, err := up.ExecContext(ctx, root, d.path, e.Kind, uint32(e.Mode), e.Size, e.MtimeNS, e.CtimeNS, int64(e.Ino),
			e.SHA256, e.Target, e.Stored); err != nil {
			return err
		}
	}
	return nil
}

// insertChanges records the deltas that are changes as capture id's.
func insertChanges(ctx context.Context, tx queryer, id int64, ds []delta) error {
	for _, d := range ds {
		if d.change == "" {
			continue
		}
		b, a := cols(d.old), cols(d.new)
		args := append(append([]any{id, d.path, string(d.change)}, b...), a...)
		if _, err := tx.ExecContext(ctx, `INSERT INTO cp_changes(capture_id, path, change,
			b_kind, b_mode, b_size, b_sha256, b_target, b_stored, a_kind, a_mode, a_size, a_sha256, a_target, a_stored)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...); err != nil {
			return err
		}
	}
	return nil
}

func cols(e *Entry) []any {
	if e == nil {
		return []any{"", 0, 0, "", "", false}
	}
	return []any{string(e.Kind), uint32(e.Mode), e.Size, e.SHA256, e.Target, e.Stored}
}

// entryOf rebuilds an Entry from change columns ("" kind = absent).
func entryOf(kind string, mode uint32, size int64, sha, target string, stored bool) *Entry {
	if kind == "" {
		return nil
	}
	return &Entry{Kind: Kind(kind), Mode: fs.FileMode(mode), Size: size, SHA256: sha, Target: target, Stored: stored}
}

// changeRow is one stored change with its capture.
type changeRow struct {
	Change
	captureID int64
	sessionID string
	callID    string
	runID     string
}

const changeCols = `c.id, c.session_id, c.call_id, c.run_id, c.seq, ch.path, ch.change,
	ch.b_kind, ch.b_mode, ch.b_size, ch.b_sha256, ch.b_target, ch.b_stored,
	ch.a_kind, ch.a_mode, ch.a_size, ch.a_sha256, ch.a_target, ch.a_stored`

func queryChanges(ctx context.Context, q queryer, where string, args ...any) ([]changeRow, error) {
	var out []changeRow
	err := eachRow(ctx, q, func(rows *sql.Rows) error {
		var r changeRow
		var bk, bs, bt, ak, as, at string
		var bm, am uint32
		var bz, az int64
		var bst, ast bool
		if err := rows.Scan(&r.captureID, &r.sessionID, &r.callID, &r.runID, &r.Seq, &r.Path, &r.Change.Change,
			&bk, &bm, &bz, &bs, &bt, &bst, &ak, &am, &az, &as, &at, &ast); err != nil {
			return err
		}
		r.Before, r.After = entryOf(bk, bm, bz, bs, bt, bst), entryOf(ak, am, az, as, at, ast)
		r.By = byOf(r.callID)
		r.Change.fill()
		out = append(out, r)
		return nil
	}, `SELECT `+changeCols+` FROM cp_changes ch JOIN cp_captures c ON c.id = ch.capture_id
		WHERE `+where+` ORDER BY c.seq, c.id, ch.path`, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}
