package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// RecoverReport is what Recover saved and what it could not.
type RecoverReport struct {
	// Sessions is how many sessions the new file holds; Whole how many of them lost nothing.
	Sessions int   `json:"sessions"`
	Whole    int   `json:"whole"`
	Rows     int64 `json:"rows"`
	// NotSaved lists what is missing from the new file: the rows of a session from the first
	// one that could not be read (or parsed, or that breaks pairing) on, a table's unreadable
	// rows, rows whose parent was lost. Problem is "not_saved".
	NotSaved []Problem `json:"not_saved"`
}

// skipTables are not copied: the migrations' own record, SQLite's, and the search index,
// which the store rebuilds from the rows (search.go indexes the rows it has not seen).
func skipTable(name string) bool {
	return name == "schema_migrations" || name == "sessions" || name == "chunks" ||
		strings.HasPrefix(name, "sqlite_") || strings.HasPrefix(name, "chunks_fts")
}

// Recover copies everything readable of the database at src into a new database at out,
// session by session and row by row, and never writes to src. A session keeps its rows up
// to the first one that cannot be read, parsed or paired (so the copy replays and continues
// like any session; calls left without a result are answered "interrupted" when out is
// opened); every other table keeps its readable rows whose parents were saved. out must not
// exist. The new file passes Check.
func Recover(ctx context.Context, src, out string) (RecoverReport, error) {
	var rep RecoverReport
	if _, err := os.Stat(out); err == nil {
		return rep, fmt.Errorf("recover into %s: %w: the file exists", out, ErrInvalid)
	}
	conn, err := openReadOnly(src)
	if err != nil {
		return rep, err
	}
	defer conn.Close()
	j, err := readJournal(ctx, conn)
	if err != nil {
		return rep, fmt.Errorf("recover %s: %w", src, err)
	}
	dst, err := Open(ctx, out)
	if err != nil {
		return rep, err
	}
	err = copyAll(ctx, conn, dst.sql, j, &rep)
	dst.Close()
	if err != nil {
		os.Remove(out)
		return rep, fmt.Errorf("recover %s into %s: %w", src, out, err)
	}
	// Opening again answers the calls a cut left waiting, as after a crash.
	dst, err = Open(ctx, out)
	if err != nil {
		return rep, err
	}
	return rep, dst.Close()
}

// copyAll copies the journal and every other table in one transaction on one connection
// whose foreign keys are off while rows arrive in table order, then drops the rows whose
// parent was lost, so the new file's foreign keys hold.
func copyAll(ctx context.Context, src, dst *sql.DB, j *journal, rep *RecoverReport) error {
	c, err := dst.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer c.ExecContext(context.Background(), `PRAGMA foreign_keys = ON`)
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := copyJournal(ctx, src, tx, j, rep); err != nil {
		return err
	}
	if err := copyTables(ctx, src, tx, rep); err != nil {
		return err
	}
	if err := dropOrphans(ctx, tx, rep); err != nil {
		return err
	}
	return tx.Commit()
}

// keptPrefix is how much of a session Recover keeps: its rows through seq last, with the
// calls of its last turn still waiting.
type keptPrefix struct {
	last    int64
	pending []pendingCall
}

// prefixes decides, from the check's walk, how far each session can be kept and records
// what is left out.
func (j *journal) prefixes(rep *RecoverReport) map[string]keptPrefix {
	out := map[string]keptPrefix{}
	for id, rows := range j.rows {
		t, known := j.sessions[id]
		total := t.lastSeq
		if !known {
			total = rows[len(rows)-1].seq
		}
		var k keptPrefix
		why := ""
		for _, r := range rows {
			if r.seq != k.last+1 {
				why = fmt.Sprintf("row %d cannot be read", k.last+1)
				break
			}
			if r.err != nil {
				why = fmt.Sprintf("row %d does not parse: %v", r.seq, r.err)
				break
			}
			next, err := step(k.pending, r.kind, r.value, r.seq)
			if err != nil {
				why = fmt.Sprintf("row %d: %v", r.seq, err)
				break
			}
			k.last, k.pending = r.seq, next
		}
		if why == "" && k.last < total {
			why = fmt.Sprintf("row %d cannot be read", k.last+1)
		}
		if why != "" {
			rep.NotSaved = append(rep.NotSaved, Problem{Problem: "not_saved", SessionID: id, Seq: k.last + 1,
				Detail: fmt.Sprintf("rows %d-%d of the session not saved: %s", k.last+1, total, why)})
		}
		out[id] = k
	}
	for id, t := range j.sessions {
		if _, ok := out[id]; !ok && t.lastSeq > 0 {
			rep.NotSaved = append(rep.NotSaved, Problem{Problem: "not_saved", SessionID: id, Seq: 1,
				Detail: fmt.Sprintf("rows 1-%d of the session not saved: none can be read", t.lastSeq)})
		}
	}
	return out
}

// copyJournal copies the sessions and their kept rows.
func copyJournal(ctx context.Context, conn *sql.DB, tx *sql.Tx, j *journal, rep *RecoverReport) error {
	keep := j.prefixes(rep)
	err := func() error {
		cols, err := commonColumns(ctx, conn, tx, "sessions")
		if err != nil {
			return err
		}
		saved := map[string]bool{}
		if _, err := walkInto(ctx, conn, tx, "sessions", cols, func(vals map[string]any) bool {
			id := asString(vals["id"])
			k := keep[id]
			vals["last_seq"], vals["bytes"] = k.last, 0 // the rows' triggers add their bytes
			pj, _ := json.Marshal(append([]pendingCall{}, k.pending...))
			vals["pending"] = string(pj)
			saved[id] = true
			return true
		}); err != nil {
			return err
		}
		for id, k := range keep {
			if !saved[id] {
				if err := recreateSession(ctx, tx, id, k); err != nil {
					return err
				}
			}
		}
		rep.Sessions = len(saved)
		for id := range keep {
			if !saved[id] {
				rep.Sessions++
			}
		}
		rcols, err := commonColumns(ctx, conn, tx, "chunks")
		if err != nil {
			return err
		}
		_, err = walkInto(ctx, conn, tx, "chunks", rcols, func(vals map[string]any) bool {
			id := asString(vals["session_id"])
			seq, _ := vals["seq"].(int64)
			if seq > keep[id].last {
				return false
			}
			rep.Rows++
			return true
		})
		return err
	}()
	whole := len(keep)
	for _, p := range rep.NotSaved {
		if p.SessionID != "" {
			whole--
		}
	}
	rep.Whole = max(whole, 0)
	return err
}

// recreateSession makes a session record for rows whose own record was lost.
func recreateSession(ctx context.Context, tx *sql.Tx, id string, k keptPrefix) error {
	pj, _ := json.Marshal(append([]pendingCall{}, k.pending...))
	_, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, title, created_at, updated_at, last_seq, pending)
		VALUES (?, ?, 0, 0, ?, ?)`, id, "Recovered session "+id, k.last, string(pj))
	return err
}

// copyTables copies every other table's readable rows.
func copyTables(ctx context.Context, conn *sql.DB, tx *sql.Tx, rep *RecoverReport) error {
	names, err := queryStrings(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rootpage`)
	if err != nil {
		return err
	}
	for _, name := range names {
		if skipTable(name) {
			continue
		}
		cols, err := commonColumns(ctx, conn, tx, name)
		if err != nil || len(cols) == 0 {
			continue // a table the damaged file does not have (or cannot describe)
		}
		gaps, err := walkInto(ctx, conn, tx, name, cols, func(map[string]any) bool { return true })
		if err != nil {
			return err
		}
		for _, g := range gaps {
			rep.NotSaved = append(rep.NotSaved, Problem{Problem: "not_saved", Detail: fmt.Sprintf("table %s: the rows from rowid %d to %s cannot be read", name, g.From, upto(g))})
		}
	}
	return nil
}

func asString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return ""
}

func upto(g gap) string {
	if g.Upto == maxRowid {
		return "the end"
	}
	return fmt.Sprint(g.Upto)
}

// dropOrphans deletes the rows whose parent was not saved until none is left.
func dropOrphans(ctx context.Context, tx *sql.Tx, rep *RecoverReport) error {
	for range 8 { // a chain of parents is a few tables deep
		rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
		if err != nil {
			return err
		}
		type orphan struct {
			table, parent string
			rowid         int64
		}
		var found []orphan
		for rows.Next() {
			var o orphan
			var fkid int
			var rowid sql.NullInt64
			if err := rows.Scan(&o.table, &rowid, &o.parent, &fkid); err != nil {
				rows.Close()
				return err
			}
			o.rowid = rowid.Int64
			found = append(found, o)
		}
		rows.Close()
		if len(found) == 0 {
			return nil
		}
		for _, o := range found {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %q WHERE rowid = ?`, o.table), o.rowid); err != nil {
				return err
			}
			rep.NotSaved = append(rep.NotSaved, Problem{Problem: "not_saved",
				Detail: fmt.Sprintf("table %s: row %d refers to a %s row that was lost", o.table, o.rowid, o.parent)})
		}
	}
	return errors.New("rows referring to lost rows are still left after 8 rounds")
}

// commonColumns lists the columns table has in both files.
func commonColumns(ctx context.Context, src *sql.DB, dst execer, table string) ([]string, error) {
	have := map[string]bool{}
	srcCols, err := queryStrings(ctx, src, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	for _, c := range srcCols {
		have[c] = true
	}
	dstCols, err := queryStrings(ctx, dst, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range dstCols {
		if have[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

// walkInto copies table's readable rows (cols) into tx, through edit, which may change the
// values and says whether to keep the row.
func walkInto(ctx context.Context, src *sql.DB, tx execer, table string, cols []string, edit func(map[string]any) bool) ([]gap, error) {
	quoted := make([]string, len(cols))
	marks := make([]string, len(cols))
	for i, c := range cols {
		quoted[i], marks[i] = fmt.Sprintf("%q", c), "?"
	}
	insert := fmt.Sprintf(`INSERT OR IGNORE INTO %q(%s) VALUES (%s)`, table, strings.Join(quoted, ", "), strings.Join(marks, ", "))
	walk := walkRows
	var noRowid int
	_ = src.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_list WHERE name = ? AND wr = 1`, table).Scan(&noRowid)
	if noRowid > 0 {
		walk = walkKeyed
	}
	return walk(ctx, src, fmt.Sprintf("%q", table), strings.Join(quoted, ", "), func(_ *int64, scan func(...any) error) error {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := scan(ptrs...); err != nil {
			return err
		}
		byName := make(map[string]any, len(cols))
		for i, c := range cols {
			byName[c] = vals[i]
		}
		if !edit(byName) {
			return nil
		}
		for i, c := range cols {
			vals[i] = byName[c]
		}
		if _, err := tx.ExecContext(ctx, insert, vals...); err != nil {
			// Not a damaged page of src: the walk must stop, not step over it.
			return fmt.Errorf("copy a row of %s: %v", table, err)
		}
		return nil
	})
}
