package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The actions on one part of a long session (find, undo a compaction, edit or regenerate from
// a row, the first row of a run) read that part: on a session of 100,000 rows, each reads at
// most a few dozen rows (RowsRead), where reading the session was 100,000.
func TestActionsOnALongSessionReadOnlyWhatTheyNeed(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	id := longSession(t, db, 100_000, 400)
	first := mustAppend(t, db, id, "run-find", user("where is the Zyzzyva defined"))[0].Seq
	for range 50 {
		mustAppend(t, db, id, "run-find", assistant("looking"))
	}
	last := mustAppend(t, db, id, "run-find", user("zyzzyva again, and ZYZZYVA"))[0].Seq
	other := mustSession(t, db, "another session")
	mustAppend(t, db, other.ID, "", user("a zyzzyva of another session"))

	reads := func(what string, bound int64, f func() error) {
		t.Helper()
		before := db.RowsRead()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := db.RowsRead() - before; n > bound {
			t.Errorf("%s read %d rows, want at most %d", what, n, bound)
		}
	}

	reads("find", 2, func() error {
		rows, err := db.FindRows(ctx, id, "zyzzyva", 0, 0, store.FindLimit)
		if got := seqsOf(rows); err == nil && !slices.Equal(got, []int64{first, last}) {
			t.Errorf("found rows %v, want %d and %d", got, first, last)
		}
		return err
	})
	reads("find outside the rows shown", 1, func() error {
		rows, err := db.FindRows(ctx, id, "ZYZZ", first-10, first+10, store.FindLimit) // a word's start
		if got := seqsOf(rows); err == nil && !slices.Equal(got, []int64{last}) {
			t.Errorf("found rows %v outside %d..%d, want %d", got, first-10, first+10, last)
		}
		return err
	})
	if rows, err := db.FindRows(ctx, id, "-> {", 0, 0, store.FindLimit); err != nil || len(rows) != 0 {
		t.Errorf("text without a word found %d rows, %v", len(rows), err)
	}
	reads("the summary rows", 100_000/400+1, func() error {
		rows, err := db.SummaryRows(ctx, id)
		if err == nil && (len(rows) < 200 || slices.ContainsFunc(rows, func(c store.Chunk) bool { return c.Kind != store.KindSummary })) {
			t.Errorf("%d summary rows", len(rows))
		}
		return err
	})
	reads("one row", 1, func() error {
		c, err := db.Row(ctx, id, 54_321)
		if err == nil && c.Seq != 54_321 {
			t.Errorf("row %d, want 54321", c.Seq)
		}
		return err
	})
	if _, err := db.Row(ctx, id, last+1); !errors.Is(err, store.ErrSeqOutOfRange) {
		t.Errorf("a row past the last: %v", err)
	}
	reads("the last reply", 0, func() error {
		seq, err := db.LastReply(ctx, id)
		if err == nil && seq != last-1 {
			t.Errorf("last reply %d, want %d", seq, last-1)
		}
		return err
	})
	reads("the first row of a run", 1+2*16, func() error {
		c, err := db.RunStart(ctx, id, "run-find")
		if err == nil && c.Seq != first {
			t.Errorf("run-find starts at %d, want %d", c.Seq, first)
		}
		return err
	})
	mid, err := db.Row(ctx, id, 50_002)
	if err != nil {
		t.Fatal(err)
	}
	reads("the first row of a run of 2,000 rows", 1+2*16, func() error {
		c, err := db.RunStart(ctx, id, mid.RunID)
		if err == nil && c.RunID != mid.RunID {
			t.Errorf("the first row of %s is of run %s", mid.RunID, c.RunID)
		}
		if prev, err := db.Row(ctx, id, c.Seq-1); err == nil && prev.RunID == mid.RunID {
			t.Errorf("row %d before the first of run %s is of that run too", prev.Seq, mid.RunID)
		}
		return err
	})
}

func seqsOf(rows []store.Chunk) []int64 {
	out := []int64{}
	for _, c := range rows {
		out = append(out, c.Seq)
	}
	return out
}
