package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// Snippet highlight markers: control characters that never occur in typed
// text and survive JSON, so a UI can split on them safely and render the
// marked part however it likes (the CLI shows «...»).
const (
	MarkStart = "\x01"
	MarkEnd   = "\x02"
)

// DefaultSearchLimit is the number of hits Search returns when limit <= 0.
const DefaultSearchLimit = 50

// Hit is one row matching a search. Rank is higher for better matches
// (negated FTS5 bm25). Snippet holds up to a few words of context around
// the match with MarkStart/MarkEnd around matched terms and "…" where
// text was cut.
type Hit struct {
	SessionID    string  `json:"session_id"`
	SessionTitle string  `json:"session_title"`
	Seq          int64   `json:"seq"`
	Kind         Kind    `json:"kind"`
	Snippet      string  `json:"snippet"`
	Rank         float64 `json:"rank"`
}

// SearchSQL is the query Search runs (exported for the benchmark that
// compares Search with running it bare).
//
// The best hits are chosen inside FTS5 alone (its ORDER BY rank LIMIT n keeps n rows as it
// ranks), and only those are joined to their rows and sessions. FTS5's snippet tokenises the
// whole body to place its window, which for a tool output of a megabyte is most of a
// second; a body longer than bigBody comes back instead and Search cuts its snippet at the
// first matched word (bigSnippet).
const SearchSQL = `SELECT c.session_id, s.title, c.seq, c.kind, top.snip, top.big, top.score
	FROM (SELECT rowid AS id, -rank AS score,
			CASE WHEN octet_length(body) <= ` + bigBody + ` THEN snippet(chunks_fts, 0, char(1), char(2), '…', 16) ELSE '' END AS snip,
			CASE WHEN octet_length(body) > ` + bigBody + ` THEN body ELSE '' END AS big
		FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) AS top
	JOIN chunks c ON c.id = top.id
	JOIN sessions s ON s.id = c.session_id
	ORDER BY top.score DESC`

// bigBody is the length in bytes above which a hit's snippet is cut in Go (octet_length:
// length would count the characters of every hit's body, a scan of each).
const bigBody = "16384"

// bigSnippet is a snippet of a long body: about 16 words around the first word of the query
// found in it (a prefix for a "word*" term), marked like FTS5's, with "…" where it is cut.
func bigSnippet(body, query string) string {
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return r < 0x80 && !isWordByte(byte(r)) }) {
		if w != "or" && w != "and" && w != "not" && w != "near" {
			terms = append(terms, w)
		}
	}
	at, n := firstTerm(body, terms)
	if at < 0 {
		return headOf(body)
	}
	for at+n < len(body) && isWordByte(body[at+n]) {
		n++ // the whole word a prefix matched
	}
	from := at
	for words := 0; from > 0 && words < 8; from-- {
		if body[from-1] == ' ' || body[from-1] == '\n' {
			words++
		}
	}
	to := at + n
	for words := 0; to < len(body) && words < 8; to++ {
		if body[to] == ' ' || body[to] == '\n' {
			words++
		}
	}
	out := strings.ToValidUTF8(body[from:at], "") + MarkStart + body[at:at+n] + MarkEnd + strings.ToValidUTF8(body[at+n:to], "")
	if from > 0 {
		out = "…" + out
	}
	if to < len(body) {
		out += "…"
	}
	return out
}

// firstTerm finds the first of terms (lower case) in body, case-insensitively, a window of
// the body at a time: the match is usually near the start, and lowering a megabyte for it is
// most of the cost of a search.
func firstTerm(body string, terms []string) (at, n int) {
	const window = 32 << 10
	longest := 0
	for _, t := range terms {
		longest = max(longest, len(t))
	}
	for from := 0; from < len(body); from += window {
		part := strings.ToLower(body[from:min(len(body), from+window+longest)])
		at = -1
		for _, t := range terms {
			if i := strings.Index(part, t); i >= 0 && (at < 0 || i < at) {
				at, n = i, len(t)
			}
		}
		// Lowering keeps ASCII in place; a match is used only where it lines up with body.
		if at >= 0 && from+at+n <= len(body) && strings.EqualFold(body[from+at:from+at+n], part[at:at+n]) {
			return from + at, n
		}
	}
	return -1, 0
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// headOf is the start of a body no word of the query was found in (an FTS5 match on a
// form the plain search above does not see): its first 100 bytes.
func headOf(body string) string {
	if len(body) <= 100 {
		return body
	}
	return strings.ToValidUTF8(body[:100], "") + "…"
}

// Search finds rows across all sessions, best first. The query uses FTS5
// syntax: words (all must match), "exact phrases", prefix*, OR, NOT,
// NEAR(...). A query that does not parse returns ErrBadQuery with SQLite's
// explanation and a hint; Literal turns any text into a query that parses.
func (db *DB) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("search: %w: empty query", ErrBadQuery)
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	if err := db.catchUpSearch(ctx); err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	rows, err := db.sql.QueryContext(ctx, SearchSQL, query, limit)
	if err != nil {
		return nil, searchErr(query, err)
	}
	defer rows.Close()
	out := []Hit{}
	for rows.Next() {
		var h Hit
		var big string
		if err := rows.Scan(&h.SessionID, &h.SessionTitle, &h.Seq, &h.Kind, &h.Snippet, &big, &h.Rank); err != nil {
			return nil, searchErr(query, err)
		}
		if big != "" {
			h.Snippet = bigSnippet(big, query)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, searchErr(query, err)
	}
	return out, nil
}

// searchErr turns FTS5's parse errors ("fts5: syntax error near ...",
// "unterminated string", "no such column: x" for "x:term") into
// ErrBadQuery. SearchSQL itself is fixed and tested, so a plain SQLITE_ERROR
// from it can only come from the query text.
func searchErr(query string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrError {
		return fmt.Errorf("search %q: %w: %s (put words with punctuation in double quotes, e.g. \"time.Sleep\")", query, ErrBadQuery, se.Error())
	}
	return fmt.Errorf("search %q: %w", query, classify(err))
}

// Literal turns plain text into an FTS5 query that matches rows holding
// every word of it, whatever punctuation it contains: each
// whitespace-separated word becomes a quoted phrase (so time.Sleep matches
// "time" followed by "sleep").
func Literal(text string) string {
	fields := strings.Fields(text)
	for i, f := range fields {
		fields[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
	}
	return strings.Join(fields, " ")
}

// The full-text index catches up in batches (migration 0013): a new row is left out of
// chunks_fts, and the rows left out are indexed in one statement, so FTS5 writes its segment,
// structure and averages records once per batch instead of once per commit. The rows in
// chunks_fts are exactly those with an id at most the mark, the highest id FTS5 holds.
const searchMark = `(SELECT coalesce(max(id), 0) FROM chunks_fts_docsize)`

// searchBacklogLimit is how many rows this process appends before an append indexes the
// rows left out in its own transaction, so a search never has many rows to index first.
const searchBacklogLimit = 64

// indexBacklog indexes every row left out of chunks_fts, inside the caller's write
// transaction.
func indexBacklog(ctx context.Context, tx execer) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts(rowid, body)
		SELECT id, body FROM chunk_text WHERE id > `+searchMark+` ORDER BY id`); err != nil {
		return fmt.Errorf("index rows for search: %w", err)
	}
	return nil
}

// catchUpSearch indexes the rows left out before a search, so a search sees every committed
// row (from this process or another). It writes only when rows wait.
func (db *DB) catchUpSearch(ctx context.Context) error {
	var waiting bool
	if err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id > `+searchMark+`)`).Scan(&waiting); err != nil {
		return classify(err)
	}
	if !waiting {
		return nil
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		db.backlog.Store(0)
		return indexBacklog(ctx, tx)
	})
}

// noteBacklog counts n rows appended by this process and indexes the rows left out in tx
// once searchBacklogLimit rows have waited.
func (db *DB) noteBacklog(ctx context.Context, tx execer, n int) error {
	if db.backlog.Add(int64(n)) < searchBacklogLimit {
		return nil
	}
	db.backlog.Store(0)
	return indexBacklog(ctx, tx)
}
