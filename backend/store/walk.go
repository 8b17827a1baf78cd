package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mattn/go-sqlite3"
)

// Reading a damaged file row by row. A table's rows are read in rowid order; where a page
// cannot be read, the walk finds the first rowid from which a seek no longer lands on the
// damaged page (probing further and further, then bisecting back) and goes on from there, so
// everything on the pages that survive is read. `db check` and `db recover` share it.

// gap is a run of rowids a walk could not read: [From, Upto]; Upto is maxRowid when nothing
// from From on could be read.
type gap struct{ From, Upto int64 }

const (
	walkBatch = 512
	maxRowid  = int64(1) << 62
	minRowid  = int64(-1) // the store's tables number their rows from 1
)

// walkRows calls fn for every readable row of table (cols is its select list, after the
// rowid), in rowid order, with a scan function for the columns that also sets *rowid. It
// returns the gaps; errors other than a damaged page (and fn's own) end the walk.
func walkRows(ctx context.Context, conn *sql.DB, table, cols string, fn func(rowid *int64, scan func(...any) error) error) ([]gap, error) {
	var gaps []gap
	from := minRowid
	for {
		n, last, err := walkBatchFrom(ctx, conn, table, cols, from, fn)
		if n > 0 {
			from = last + 1
		}
		if err == nil {
			if n < walkBatch {
				return gaps, nil
			}
			continue
		}
		if !damage(err) {
			return gaps, err
		}
		next, ok, err := nextReadable(ctx, conn, table, from)
		if err != nil {
			return gaps, err
		}
		if !ok {
			return append(gaps, gap{From: from, Upto: maxRowid}), nil
		}
		gaps = append(gaps, gap{From: from, Upto: next - 1})
		from = next
	}
}

// walkBatchFrom reads up to walkBatch rows from rowid from on; n and last say how far it got
// before err.
func walkBatchFrom(ctx context.Context, conn *sql.DB, table, cols string, from int64, fn func(*int64, func(...any) error) error) (n int, last int64, err error) {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`SELECT rowid, %s FROM %s WHERE rowid >= ? ORDER BY rowid LIMIT %d`, cols, table, walkBatch), from)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var rowid int64
		// fn scans the row's columns (once); the rowid comes first in every row.
		scan := func(dest ...any) error { return rows.Scan(append([]any{&rowid}, dest...)...) }
		if err := fn(&rowid, scan); err != nil {
			return n, last, err
		}
		n++
		last = rowid
	}
	return n, last, rows.Err()
}

// nextReadable finds the smallest k > from such that a seek to rowid >= k (the one
// walkBatchFrom makes) reads again, and returns it: the rows in [from, k) are lost. ok is
// false when nothing from from on can be read.
func nextReadable(ctx context.Context, conn *sql.DB, table string, from int64) (int64, bool, error) {
	probe := func(k int64) (bool, error) {
		var id int64
		err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT rowid FROM %s WHERE rowid >= ? ORDER BY rowid LIMIT 1`, table), k).Scan(&id)
		if err == nil || errors.Is(err, sql.ErrNoRows) {
			return true, nil
		}
		if damage(err) {
			return false, nil
		}
		return false, err
	}
	bad, step := from, int64(1)
	var good int64
	for {
		if step > maxRowid {
			return 0, false, nil
		}
		k := from + step
		ok, err := probe(k)
		if err != nil {
			return 0, false, err
		}
		if ok {
			good = k
			break
		}
		bad, step = k, step*2
	}
	for good-bad > 1 {
		mid := bad + (good-bad)/2
		ok, err := probe(mid)
		if err != nil {
			return 0, false, err
		}
		if ok {
			good = mid
		} else {
			bad = mid
		}
	}
	return good, true, nil
}

// damage says whether err is SQLite finding a page it cannot read (as opposed to a lock or
// a cancelled context or a query that does not fit the table).
func damage(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case sqlite3.ErrError, sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrInterrupt, sqlite3.ErrNomem, sqlite3.ErrPerm, sqlite3.ErrAuth:
		return false
	}
	return true
}

// walkKeyed reads a WITHOUT ROWID table in one pass, as walkRows does a table with rowids:
// it has no rowid to seek past a damaged page by, so the rows after one are a gap.
func walkKeyed(ctx context.Context, conn *sql.DB, table, cols string, fn func(rowid *int64, scan func(...any) error) error) ([]gap, error) {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`SELECT 0, %s FROM %s`, cols, table))
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var rowid int64
			scan := func(dest ...any) error { return rows.Scan(append([]any{&rowid}, dest...)...) }
			if err = fn(&rowid, scan); err != nil {
				return nil, err
			}
		}
		err = rows.Err()
	}
	if err != nil && damage(err) {
		return []gap{{From: 0, Upto: maxRowid}}, nil
	}
	return nil, err
}
