package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Two Loopdesk processes started at once on a fresh database (two editors starting `loopdesk
// acp`, a window and `loopdesk run`) must both open it: the one that loses the race to create
// the schema and switch the file to WAL waits for the other, as any write does, instead of
// failing with "database is locked". Each open is a process of its own (this test binary run
// again), since SQLite's locks between processes are what the race is about.
func TestConcurrentOpensOfAFreshDatabaseAllSucceed(t *testing.T) {
	if path := os.Getenv("LOOPDESK_TEST_OPEN"); path != "" {
		db, err := Open(context.Background(), path)
		if err == nil {
			err = db.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	for i := 0; i < 10; i++ {
		path := filepath.Join(t.TempDir(), "loopdesk.db")
		var wg sync.WaitGroup
		outs := make([][]byte, 4)
		errs := make([]error, 4)
		for j := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentOpensOfAFreshDatabaseAllSucceed$", "-test.count=1")
				cmd.Env = append(os.Environ(), "LOOPDESK_TEST_OPEN="+path)
				outs[j], errs[j] = cmd.CombinedOutput()
			}()
		}
		wg.Wait()
		for j, err := range errs {
			if err != nil {
				t.Fatalf("round %d, process %d: %v\n%s", i, j, err, outs[j])
			}
		}
	}
}
