package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Size is what a session takes in the database, as SQLite stores it: the records of its rows,
// of the images its rows show, and of the checkpoint chunks its change records use (dbstat's
// "payload" of those tables; indexes, the search index and free space aside). Images and
// checkpoint chunks shared with other sessions count in each.
type Size struct {
	Rows        int64 `json:"rows"`
	Images      int64 `json:"images"`
	Checkpoints int64 `json:"checkpoints"`
	Total       int64 `json:"total"`
}

// The size of a record (SQLite's file format, "Record Format") is its header length (one byte
// for these tables), one serial type per column and the values. A text or blob of L bytes has
// serial type 2L+13 or 2L+12, a varint of the same length either way (the varint's bounds are
// even); an integer is 0 to 8 bytes by magnitude.
func varintLenSQL(n string) string {
	return "CASE WHEN " + n + " < 128 THEN 1 WHEN " + n + " < 16384 THEN 2 WHEN " + n + " < 2097152 THEN 3 WHEN " +
		n + " < 268435456 THEN 4 ELSE 5 END"
}

// textLenSQL is a text column's part of a record; the cast counts bytes, not characters.
func textLenSQL(col string) string {
	l := "length(CAST(" + col + " AS BLOB))"
	return "(" + varintLenSQL("2 * "+l+" + 13") + ") + " + l
}

// blobLenSQL is a blob column's part: length() of a blob reads no overflow page.
func blobLenSQL(col string) string {
	l := "length(" + col + ")"
	return "(" + varintLenSQL("2 * "+l+" + 12") + ") + " + l
}

func intLenSQL(col string) string {
	return "1 + CASE WHEN " + col + " IN (0, 1) THEN 0 WHEN " + col + " BETWEEN -128 AND 127 THEN 1 WHEN " + col +
		" BETWEEN -32768 AND 32767 THEN 2 WHEN " + col + " BETWEEN -8388608 AND 8388607 THEN 3 WHEN " + col +
		" BETWEEN -2147483648 AND 2147483647 THEN 4 WHEN " + col + " BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END"
}

func recordSQL(parts ...string) string { return "1 + (" + strings.Join(parts, ") + (") + ")" }

// The images and checkpoint chunks of sessions, summed per session; where is "" or a filter on
// the session id.
func imageBytesSQL(where string) string {
	return `SELECT r.session_id, sum(` + recordSQL(textLenSQL("b.hash"), textLenSQL("b.mime"), intLenSQL("b.width"),
		intLenSQL("b.height"), blobLenSQL("b.data"), intLenSQL("b.created_at")) + `)
		FROM blob_refs r JOIN blobs b ON b.hash = r.hash ` + where + ` GROUP BY r.session_id`
}

func checkpointBytesSQL(where string) string {
	return `SELECT x.session_id, sum(` + recordSQL(textLenSQL("k.sha256"), blobLenSQL("k.data")) + `)
		FROM (SELECT DISTINCT cap.session_id, bc.chunk FROM cp_captures cap
			JOIN cp_changes ch ON ch.capture_id = cap.id
			JOIN cp_blob_chunks bc ON bc.blob IN (ch.b_sha256, ch.a_sha256) ` + where + `) x
		JOIN cp_chunks k ON k.sha256 = x.chunk GROUP BY x.session_id`
}

// SessionSize returns one session's size (ErrNotFound for an unknown session).
func (db *DB) SessionSize(ctx context.Context, id string) (Size, error) {
	all, err := db.sizes(ctx, id)
	if err != nil {
		return Size{}, err
	}
	s, ok := all[id]
	if !ok {
		return Size{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return s, nil
}

// SessionSizes returns every session's size by id.
func (db *DB) SessionSizes(ctx context.Context) (map[string]Size, error) { return db.sizes(ctx, "") }

func (db *DB) sizes(ctx context.Context, id string) (map[string]Size, error) {
	out := map[string]Size{}
	err := db.read(ctx, func(tx execer) error {
		where, cpWhere, args := "", "", []any{}
		if id != "" {
			where, cpWhere, args = "WHERE r.session_id = ?", "WHERE cap.session_id = ?", []any{id}
		}
		q := `SELECT id, bytes FROM sessions`
		if id != "" {
			q += ` WHERE id = ?`
		}
		if err := sumInto(ctx, tx, q, args, out, true, func(s *Size, n int64) { s.Rows = n }); err != nil {
			return err
		}
		if err := sumInto(ctx, tx, imageBytesSQL(where), args, out, false, func(s *Size, n int64) { s.Images = n }); err != nil {
			return err
		}
		return sumInto(ctx, tx, checkpointBytesSQL(cpWhere), args, out, false, func(s *Size, n int64) { s.Checkpoints = n })
	})
	if err != nil {
		return nil, fmt.Errorf("session sizes: %w", classify(err))
	}
	for k, s := range out {
		s.Total = s.Rows + s.Images + s.Checkpoints
		out[k] = s
	}
	return out, nil
}

// sumInto reads (session id, bytes) pairs and sets them with set; with create false an id not
// in out yet (none: every pair names a session) is skipped.
func sumInto(ctx context.Context, tx execer, q string, args []any, out map[string]Size, create bool, set func(*Size, int64)) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n sql.NullInt64
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		s, ok := out[id]
		if !ok && !create {
			continue
		}
		set(&s, n.Int64)
		out[id] = s
	}
	return rows.Err()
}

// FileSize is the database on disk: the file and its write-ahead log, and how much of the
// file is free pages (given back by Reclaim).
type FileSize struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Free  int64  `json:"free"`
}

// FileSize measures the database's files now.
func (db *DB) FileSize(ctx context.Context) (FileSize, error) {
	out := FileSize{Path: db.path}
	for _, p := range []string{db.path, db.path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return FileSize{}, fmt.Errorf("database size: %w", err)
		}
		if err == nil {
			out.Bytes += fi.Size()
		}
	}
	var free, page int64
	if err := db.sql.QueryRowContext(ctx, `SELECT freelist_count, page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&free, &page); err != nil {
		return FileSize{}, fmt.Errorf("database size: %w", classify(err))
	}
	out.Free = free * page
	return out, nil
}

// reclaimStep is how many free pages one step of Reclaim gives back: about a megabyte with
// 4 KiB pages, a write short enough that a run's next row never waits long behind it.
const reclaimStep = 256

// Reclaim gives the file's free pages back to the disk (a delete leaves them free), a small
// step per transaction so other writers go between the steps, then folds the log into the file
// so the file shrinks now. It returns the bytes given back.
func (db *DB) Reclaim(ctx context.Context) (int64, error) {
	if err := db.mergeSearch(ctx); err != nil {
		return 0, fmt.Errorf("reclaim space: %w", classify(err))
	}
	var gone int64
	for {
		var free, page int64
		if err := db.sql.QueryRowContext(ctx, `SELECT freelist_count, page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&free, &page); err != nil {
			return gone, fmt.Errorf("reclaim space: %w", classify(err))
		}
		if free == 0 {
			break
		}
		if err := db.vacuumStep(ctx); err != nil {
			return gone, fmt.Errorf("reclaim space: %w", classify(err))
		}
		var left int64
		if err := db.sql.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&left); err != nil {
			return gone, fmt.Errorf("reclaim space: %w", classify(err))
		}
		if left >= free { // a file still without incremental auto-vacuum frees nothing
			break
		}
		gone += (free - left) * page
	}
	// A reader holding an old snapshot keeps the log; the next checkpoint folds it.
	_, _ = db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return gone, nil
}

// incrementalVacuum gives a new file incremental auto-vacuum from its first table: the mode is
// written with the first page, by the connection that set it.
func (db *DB) incrementalVacuum(ctx context.Context) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer conn.Close()
	var pages int
	if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil || pages > 0 {
		return classify(err)
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return classify(err)
	}
	_, err = conn.ExecContext(ctx, createMigrations)
	return classify(err)
}

// mergeSearch merges the search index's segments, a little work per transaction, until FTS5
// says there is none left: a deleted row stays in the index as a tombstone beside its entries
// (a sixth of what a deleted session took, measured) until a merge drops both. A negative
// count merges segments of any level, which a delete's tombstones need.
func (db *DB) mergeSearch(ctx context.Context) error {
	for range 10000 {
		res, err := db.sql.ExecContext(ctx, `INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('merge', -64)`)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n < 2 { // FTS5: fewer than two changes, nothing was merged
			return nil
		}
	}
	return nil
}

// vacuumStep frees up to reclaimStep pages in one transaction. The pragma frees one page per
// step of its statement: Exec would step it once (one page), so its rows are read to the end.
func (db *DB) vacuumStep(ctx context.Context) error {
	rows, err := db.sql.QueryContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, reclaimStep))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// convertVacuum turns incremental auto-vacuum on for a file made before it was: that takes one
// full VACUUM, done once. A file another process holds is converted at a later open.
func (db *DB) convertVacuum(ctx context.Context) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer conn.Close()
	var mode int
	if err := conn.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return fmt.Errorf("auto_vacuum: %w", classify(err))
	}
	if mode == 2 {
		return nil
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("turn on incremental vacuum: %w", classify(err))
	}
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil && !errors.Is(classify(err), ErrLocked) {
		return fmt.Errorf("turn on incremental vacuum: %w", classify(err))
	}
	return nil
}

// ErrRunGoing is Compact's refusal while a run is going.
var ErrRunGoing = errors.New("a run is going")

// Compact rewrites the whole file without its free space (VACUUM), refused with ErrRunGoing
// while a live process runs a session of it: the rewrite would hold its next row for as long
// as it takes. It returns the file's size before and after.
func (db *DB) Compact(ctx context.Context) (before, after FileSize, err error) {
	var live []string
	err = db.read(ctx, func(tx execer) error {
		rs, err := db.running(ctx, tx, "")
		for _, r := range rs {
			if db.alive(r) {
				live = append(live, fmt.Sprintf("session %s (run %s)", r.session, r.id))
			}
		}
		return err
	})
	if err != nil {
		return before, after, fmt.Errorf("compact: %w", classify(err))
	}
	if len(live) > 0 {
		return before, after, fmt.Errorf("compact: %w: %s; wait for it to end or stop it, then compact", ErrRunGoing, strings.Join(live, ", "))
	}
	if before, err = db.FileSize(ctx); err != nil {
		return before, after, err
	}
	if _, err := db.sql.ExecContext(ctx, `VACUUM`); err != nil {
		return before, after, fmt.Errorf("compact: %w", classify(err))
	}
	_, _ = db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	after, err = db.FileSize(ctx)
	return before, after, err
}
