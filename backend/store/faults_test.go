package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// holdWriteLock starts the sqlite3 shell on path holding BEGIN EXCLUSIVE, and returns once
// the lock is taken; the shell lets go when the test ends.
func holdWriteLock(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 shell (scripts/bootstrap.sh test installs it)")
	}
	cmd := exec.Command("sqlite3", path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// A write inside the transaction proves the lock is the shell's before it says ready.
	fmt.Fprintln(in, "BEGIN EXCLUSIVE; INSERT INTO settings(key, value) VALUES ('held', '1'); SELECT 'ready';")
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("sqlite3 did not take the lock: %q %v", line, err)
	}
	return cmd
}

// Another process holding the write lock past the busy timeout: the write fails after the
// timeout (never a hang) with an error naming the process and its pid, and nothing the
// store held before is lost.
func TestBusyLockNamesTheProcessThatHoldsIt(t *testing.T) {
	db, path := openTemp(t)
	s := mustSession(t, db, "before the lock")
	mustAppend(t, db, s.ID, "", user("kept"))
	holder := holdWriteLock(t, path)

	start := time.Now()
	_, err := db.Append(context.Background(), s.ID, "", user("while locked"))
	waited := time.Since(start)
	if err == nil {
		t.Fatal("append succeeded while another process held the write lock")
	}
	want := fmt.Sprintf("the database is busy: sqlite3 (pid %d) holds it", holder.Process.Pid)
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q, want it to say %q and name %s", err, want, path)
	}
	if !errors.Is(err, store.ErrLocked) {
		t.Errorf("error %v does not wrap ErrLocked", err)
	}
	var be *store.BusyError
	if !errors.As(err, &be) || len(be.Holders) != 1 {
		t.Errorf("holders %+v, want the one shell", be)
	}
	if waited > 5*time.Second {
		t.Errorf("the write waited %v with a 200 ms busy timeout", waited)
	}

	_ = holder.Process.Kill()
	_ = holder.Wait()
	rows, err := db.Chunks(context.Background(), s.ID)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows after the lock went: %d, %v", len(rows), err)
	}
	mustAppend(t, db, s.ID, "", user("after the lock"))
}
