package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Reads of one part of a session for the window's and the runs' actions on it: each walks an
// index (chunks_kind, chunks_folds, chunks_run, the search index) or a page of rows from a
// known seq, so its cost is that of what it returns, not of the session's length. Only an
// export reads every row.

// SummaryRows returns the session's summary rows (compactions, set-asides and their undoing),
// oldest first: what FoldsOf needs to tell the compactions in effect. ErrNotFound for no such
// session.
func (db *DB) SummaryRows(ctx context.Context, sessionID string) ([]Chunk, error) {
	// The WHERE names chunks_folds' kinds for SQLite to use that index.
	out, err := db.sessionRows(ctx, sessionID, `SELECT `+chunkCols+` FROM chunks
		WHERE session_id = ? AND kind IN ('summary', 'system') AND kind = 'summary' ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("summary rows of session %s: %w", sessionID, err)
	}
	return out, nil
}

// Row returns the session's row seq. ErrSeqOutOfRange when it has none, ErrNotFound for no
// such session.
func (db *DB) Row(ctx context.Context, sessionID string, seq int64) (Chunk, error) {
	rows, err := db.ChunksAround(ctx, sessionID, seq, 1)
	if err != nil {
		return Chunk{}, err
	}
	if len(rows) == 0 || rows[0].Seq != seq {
		return Chunk{}, fmt.Errorf("%w: session %s has no row %d", ErrSeqOutOfRange, sessionID, seq)
	}
	return rows[0], nil
}

// LastReply returns the seq of the session's last reply of the model (an assistant row a run
// stored), 0 when it has none.
func (db *DB) LastReply(ctx context.Context, sessionID string) (int64, error) {
	var seq int64
	err := db.sql.QueryRowContext(ctx, `SELECT seq FROM chunks WHERE session_id = ? AND kind = 'assistant' AND run_id <> ''
		ORDER BY seq DESC LIMIT 1`, sessionID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("last reply of session %s: %w", sessionID, classify(err))
	}
	return seq, nil
}

// runStartPage is how many rows RunStart reads at a time before a run's first reply.
const runStartPage = 16

// RunStart returns the first row of the run runID in the session: its prompt, or what it
// started with. It finds the run's first reply through the chunks_run index and reads back
// from there only the rows of the run before it (its prompt, queued messages, hooks' rows).
// ErrNotFound when the run stored no reply in the session.
func (db *DB) RunStart(ctx context.Context, sessionID, runID string) (Chunk, error) {
	var first Chunk
	err := db.read(ctx, func(tx execer) error {
		var reply sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT min(seq) FROM chunks INDEXED BY chunks_run WHERE run_id = ? AND session_id = ?
			AND kind IN ('assistant', 'usage', 'summary') AND kind = 'assistant'`, runID, sessionID).Scan(&reply); err != nil {
			return err
		}
		if !reply.Valid {
			return fmt.Errorf("run %s of session %s: %w: it stored no reply", runID, sessionID, ErrNotFound)
		}
		rows, err := db.queryChunks(ctx, tx, sessionID, `SELECT `+chunkCols+` FROM chunks WHERE session_id = ? AND seq = ?`, sessionID, reply.Int64)
		if err != nil || len(rows) == 0 {
			return err
		}
		first = rows[0]
		for {
			page, err := db.before(ctx, tx, sessionID, first.Seq, runStartPage)
			if err != nil {
				return err
			}
			for i := len(page) - 1; i >= 0; i-- {
				if page[i].RunID != runID {
					return nil
				}
				first = page[i]
			}
			if len(page) < runStartPage {
				return nil
			}
		}
	})
	if err != nil {
		return Chunk{}, fmt.Errorf("first row of run %s: %w", runID, err)
	}
	return first, nil
}

// FindLimit is the most rows FindRows returns.
const FindLimit = 2000

// FindRows returns the session's rows outside from..to whose words the search index finds
// starting with every word of text (case and accents aside), oldest first, at most limit of
// them: the rows that may hold text, for a find bar that counts and steps through matches in
// rows it does not hold. Text without a word (letters or digits) finds none. It reads the
// search index and the rows it returns, never the others. ErrNotFound for no such session.
func (db *DB) FindRows(ctx context.Context, sessionID, text string, from, to int64, limit int) ([]Chunk, error) {
	query := prefixQuery(text)
	out := []Chunk{}
	if query == "" || limit <= 0 {
		_, err := db.GetSession(ctx, sessionID)
		return out, err
	}
	if err := db.catchUpSearch(ctx); err != nil {
		return nil, fmt.Errorf("find in session %s: %w", sessionID, classify(err))
	}
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		// The session's rows lie between the ids of its first and last rows: the index is
		// read over that range only, not over the whole journal's matches.
		var lo, hi sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT id FROM chunks WHERE session_id = ?1 ORDER BY seq LIMIT 1),
			(SELECT id FROM chunks WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1)`, sessionID).Scan(&lo, &hi); err != nil || !lo.Valid {
			return err
		}
		var err error
		out, err = db.queryChunks(ctx, tx, sessionID, `SELECT c.seq, c.kind, c.payload, c.run_id, c.created_at
			FROM chunks_fts f JOIN chunks c ON c.id = f.rowid
			WHERE chunks_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND c.session_id = ? AND (c.seq < ? OR c.seq > ?)
			ORDER BY f.rowid LIMIT ?`, query, min(lo.Int64, hi.Int64), max(lo.Int64, hi.Int64), sessionID, from, to, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find in session %s: %w", sessionID, err)
	}
	slices.SortFunc(out, func(a, b Chunk) int { return int(a.Seq - b.Seq) })
	return out, nil
}

// prefixQuery is the FTS5 query of rows holding a word that starts with each word of text
// (split as the index's unicode61 tokenizer splits): "word"* for each, all of them.
func prefixQuery(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = `"` + w + `"*`
	}
	return strings.Join(words, " ")
}

// sessionRows runs one query of chunkCols in a read of its own, after checking that the
// session is there (ErrNotFound).
func (db *DB) sessionRows(ctx context.Context, sessionID, query string, args ...any) ([]Chunk, error) {
	var out []Chunk
	err := db.read(ctx, func(tx execer) error {
		if _, err := span(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		out, err = db.queryChunks(ctx, tx, sessionID, query, args...)
		return err
	})
	return out, err
}
