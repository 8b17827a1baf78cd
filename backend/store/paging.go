package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Reading a session by pages: what the window shows and what the next request is built from
// cost the same at any length of the session. Every read here walks the (session_id, seq)
// index from a known seq, with a LIMIT or from the cut of the last compaction (which the
// context window bounds), or the chunks_folds index of the summary and system rows; none reads
// the rows in between.

// chunkCols are the columns scanChunks reads, in its order.
const chunkCols = `seq, kind, payload, run_id, created_at`

// Span is where a session's rows lie: seqs are gap-free from FirstSeq to LastSeq (Append
// numbers them one after another and only deleting the session removes any).
type Span struct {
	FirstSeq int64 `json:"first_seq"`
	LastSeq  int64 `json:"last_seq"`
	Count    int64 `json:"count"`
}

// scanChunks reads rows of the columns chunkCols, in the order given, counting them in
// RowsRead.
func (db *DB) scanChunks(rows *sql.Rows, sessionID string) ([]Chunk, error) {
	defer rows.Close()
	out := []Chunk{}
	for rows.Next() {
		c, err := scanChunk(rows, sessionID)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	db.rowsRead.Add(int64(len(out)))
	return out, rows.Err()
}

func scanChunk(rows *sql.Rows, sessionID string) (Chunk, error) {
	c := Chunk{SessionID: sessionID}
	var payload string
	var created int64
	err := rows.Scan(&c.Seq, &c.Kind, &payload, &c.RunID, &created)
	c.Payload, c.CreatedAt = json.RawMessage(payload), fromMS(created)
	return c, err
}

// RowsRead is how many rows this DB has read from chunks through its paged and request reads
// (ChunksAfter, ChunksTail, ChunksBefore, ChunksAround, RequestRows) since it was opened: a
// cost meter, so a test can tell that opening or continuing a long session reads a page of
// it, not all of it.
func (db *DB) RowsRead() int64 { return db.rowsRead.Load() }

// queryChunks runs one query of chunkCols in tx and scans its rows.
func (db *DB) queryChunks(ctx context.Context, tx execer, sessionID, query string, args ...any) ([]Chunk, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return db.scanChunks(rows, sessionID)
}

// span reads where the session's rows lie; ErrNotFound for no such session.
func span(ctx context.Context, tx execer, sessionID string) (Span, error) {
	var s Span
	err := tx.QueryRowContext(ctx, `SELECT last_seq FROM sessions WHERE id = ?`, sessionID).Scan(&s.LastSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return Span{}, fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return Span{}, err
	}
	var first sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(seq) FROM chunks WHERE session_id = ?`, sessionID).Scan(&first); err != nil {
		return Span{}, err
	}
	if first.Valid {
		s.FirstSeq, s.Count = first.Int64, s.LastSeq-first.Int64+1
	}
	return s, nil
}

// before reads up to limit rows with seq < seq, the nearest ones, oldest first.
func (db *DB) before(ctx context.Context, tx execer, sessionID string, seq int64, limit int) ([]Chunk, error) {
	if limit <= 0 {
		return []Chunk{}, nil
	}
	out, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
		WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, sessionID, seq, limit)
	slices.Reverse(out)
	return out, err
}

// ChunksTail returns the session's last limit rows (every row when limit <= 0), oldest
// first, and where all its rows lie. ErrNotFound for no such session.
func (db *DB) ChunksTail(ctx context.Context, sessionID string, limit int) ([]Chunk, Span, error) {
	var out []Chunk
	var s Span
	err := db.read(ctx, func(tx execer) error {
		var err error
		if s, err = span(ctx, tx, sessionID); err != nil {
			return err
		}
		if limit <= 0 {
			out, err = db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks WHERE session_id = ? ORDER BY seq`, sessionID)
			return err
		}
		out, err = db.before(ctx, tx, sessionID, math.MaxInt64, limit)
		return err
	})
	if err != nil {
		return nil, Span{}, fmt.Errorf("last rows of session %s: %w", sessionID, err)
	}
	return out, s, nil
}

// ChunksBefore returns up to limit rows with seq < before, the ones nearest before, oldest
// first: the page of rows above the ones a reader holds. ErrNotFound for no such session.
func (db *DB) ChunksBefore(ctx context.Context, sessionID string, before int64, limit int) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		out, err = db.before(ctx, tx, sessionID, before, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows of session %s before %d: %w", sessionID, before, err)
	}
	return out, nil
}

// ChunksAround returns about limit rows around seq, oldest first: limit/2 rows before it and
// the rest from seq on (more before when the session ends sooner), so a jump to a search hit
// or a fork's row lands with rows on both sides. ErrNotFound for no such session.
func (db *DB) ChunksAround(ctx context.Context, sessionID string, seq int64, limit int) ([]Chunk, error) {
	limit = max(limit, 1)
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		after, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
			WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`, sessionID, seq, limit-limit/2)
		if err != nil {
			return err
		}
		out, err = db.before(ctx, tx, sessionID, seq, limit-len(after))
		out = append(out, after...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows of session %s around %d: %w", sessionID, seq, err)
	}
	return out, nil
}

// SeqsOfKind returns the seqs of the session's rows of one kind, oldest first. It reads no
// payload: the kind comes before it in each record. ErrNotFound for no such session.
func (db *DB) SeqsOfKind(ctx context.Context, sessionID string, kind Kind) ([]int64, error) {
	out := []int64{}
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq FROM chunks WHERE session_id = ? AND kind = ? ORDER BY seq`, sessionID, string(kind))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				return err
			}
			out = append(out, seq)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("%s rows of session %s: %w", kind, sessionID, err)
	}
	return out, nil
}

// RequestRows returns the rows the session's next model request is derived from: every row
// after the cut of the compaction in effect, the summary rows after that cut, the system rows
// before it, and the first row it replaced (where Turns puts the summary). Turns, Messages
// and EstimateContext give the same answers for them as for all the rows, and FoldsOf the
// same compaction; neither the rows the compaction replaced nor the summaries it superseded
// are read. A session never compacted reads every row. ErrNotFound for no such session.
func (db *DB) RequestRows(ctx context.Context, sessionID string) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		folds, through, err := db.foldsSince(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		if through > 0 {
			// The partial index chunks_folds holds the summary and system rows: the WHERE
			// names its kinds the same way for SQLite to use it.
			early, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
				WHERE session_id = ? AND kind IN ('summary', 'system') AND kind = 'system' AND seq <= ? ORDER BY seq`, sessionID, through)
			if err != nil {
				return err
			}
			first, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
				WHERE session_id = ? AND seq <= ? AND kind NOT IN ('summary', 'system', 'approval', 'usage', 'hook', 'image_excluded')
				ORDER BY seq LIMIT 1`, sessionID, through)
			if err != nil {
				return err
			}
			folds = append(folds, append(early, first...)...)
		}
		rest, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks
			WHERE session_id = ? AND seq > ? AND kind NOT IN ('summary', 'system') ORDER BY seq`, sessionID, through)
		out = mergeSeq(folds, rest)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rows of session %s for the next request: %w", sessionID, err)
	}
	return out, nil
}

// foldsSince reads the session's summary and system rows newest first, down to the cut of the
// compaction in effect (the last compaction no later row undoes): it returns the rows after
// that cut, oldest first, and the cut (0 when no compaction is in effect: every such row).
// A summary older than the cut changes nothing the next request sends.
func (db *DB) foldsSince(ctx context.Context, tx execer, sessionID string) ([]Chunk, int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+chunkCols+` FROM chunks
		WHERE session_id = ? AND kind IN ('summary', 'system') ORDER BY seq DESC`, sessionID)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Chunk{}
	undone := map[int64]bool{}
	through := int64(-1) // not found yet
	for rows.Next() {
		c, err := scanChunk(rows, sessionID)
		db.rowsRead.Add(1)
		if err != nil {
			return nil, 0, err
		}
		if through >= 0 && c.Seq <= through {
			break
		}
		out = append(out, c)
		if through >= 0 || c.Kind != KindSummary {
			continue
		}
		var p SummaryPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return nil, 0, fmt.Errorf("%w: row %d: summary payload: %v", ErrCorrupt, c.Seq, err)
		}
		switch {
		case p.Undoes > 0:
			undone[p.Undoes] = true
		case p.FromSeq == 0 && !undone[c.Seq]:
			through = p.ThroughSeq
		}
	}
	slices.Reverse(out)
	return out, max(through, 0), rows.Err()
}

// mergeSeq is the rows of a and b (different rows) in seq order.
func mergeSeq(a, b []Chunk) []Chunk {
	out := append(append(make([]Chunk, 0, len(a)+len(b)), a...), b...)
	slices.SortStableFunc(out, func(x, y Chunk) int { return cmp.Compare(x.Seq, y.Seq) })
	return out
}
