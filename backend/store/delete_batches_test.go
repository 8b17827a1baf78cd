package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Deleting a long session goes in short transactions: another session's appends, as a running
// run makes them, wait for the write lock a batch at a time, not for the whole delete.
func TestDeletingALongSessionLetsAppendsThrough(t *testing.T) {
	ctx := context.Background()
	db, err := store.OpenWith(ctx, filepath.Join(t.TempDir(), "loopdesk.db"), store.Options{BusyTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	long, running := mustSession(t, db, "long"), mustSession(t, db, "running")
	const steps = 8000
	var batch []store.NewChunk
	for i := range steps {
		id := fmt.Sprintf("c%d", i)
		out := strings.Repeat(fmt.Sprintf("line %d of the output of a search through the workspace\n", i), 8)
		if i%500 == 250 {
			out = strings.Repeat(out, 500) // a big tool output now and then
		}
		batch = append(batch, user(fmt.Sprintf("step %d: look for the function", i)), assistant("searching", call(id, "search_text", `{"pattern":"func"}`)),
			result(id, "search_text", out), assistant(fmt.Sprintf("found it in step %d", i)))
		if len(batch) >= 1000 {
			mustAppend(t, db, long.ID, "", batch...)
			batch = nil
		}
	}
	mustAppend(t, db, long.ID, "", batch...)
	if _, err := db.Search(ctx, "function", 1); err != nil { // every row in the search index, as after a while
		t.Fatal(err)
	}

	var (
		wg      sync.WaitGroup
		longest time.Duration
		appends atomic.Int64
	)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			t0 := time.Now()
			if _, err := db.Append(ctx, running.ID, "", assistant("a streamed reply")); err != nil {
				t.Error(err)
				return
			}
			longest = max(longest, time.Since(t0))
			appends.Add(1)
			time.Sleep(2 * time.Millisecond) // a run's appends come a few milliseconds apart at most
		}
	}()
	t0 := time.Now()
	rm, err := db.RemoveSession(ctx, long.ID)
	took := time.Since(t0)
	during := appends.Load() // appends that went through while the delete went on
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if rm.Rows != 4*steps {
		t.Fatalf("removed %d rows, want %d", rm.Rows, 4*steps)
	}
	if _, err := db.GetSession(ctx, long.ID); err == nil {
		t.Fatal("the session is still there")
	}
	t.Logf("deleting %d rows took %s; %d appends meanwhile, the longest wait %s", rm.Rows, took, during, longest)
	// A delete in one transaction holds the write lock for all of it: the append waiting at
	// its start gets through only after it, and none during. Deleting in batches lets the
	// run's appends through between them, whatever the machine's speed (the waits are
	// measured, not asserted: docs/benchmarks.md).
	if during < 3 {
		t.Fatalf("%d appends went through during a delete of %d rows (%s); want the run's appends let through between batches", during, rm.Rows, took)
	}
}
