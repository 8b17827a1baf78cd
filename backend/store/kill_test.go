package store_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// TestSurvivesSIGKILL runs a child that appends agent turns as fast as it
// can, kills it with SIGKILL at random moments, and checks after every kill
// that each row the child saw committed is still there unchanged, the file
// passes integrity_check, and repair left no tool call unanswered.
func TestSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess kill test")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kill.db")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	var kept []store.Chunk // rows seen after the previous kill
	kills, partial := 25, 0
	for round := 0; round < kills; round++ {
		committed := runAndKill(t, path, time.Duration(rng.IntN(25_000))*time.Microsecond)

		db, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		var check string
		if err := db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("round %d: integrity_check: %q %v", round, check, err)
		}
		list, err := db.ListSessions(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("round %d: sessions %+v %v", round, list, err)
		}
		rows, err := db.Chunks(ctx, list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(rows)) < committed {
			t.Fatalf("round %d: child saw seq %d committed, only %d rows survived", round, committed, len(rows))
		}
		for i, r := range rows {
			if r.Seq != int64(i+1) {
				t.Fatalf("round %d: gap at row %d (seq %d)", round, i, r.Seq)
			}
		}
		for i, r := range kept {
			if !bytes.Equal(r.Payload, rows[i].Payload) || r.Kind != rows[i].Kind {
				t.Fatalf("round %d: row %d changed after a kill:\n%s\n%s", round, r.Seq, r.Payload, rows[i].Payload)
			}
		}
		if p, err := db.PendingCalls(ctx, list[0].ID); err != nil || len(p) != 0 {
			t.Fatalf("round %d: unanswered calls after repair: %+v %v", round, p, err)
		}
		assertPaired(t, rows)
		// The rows a kill left in the search backlog are found, and the index stays sound.
		if _, err := db.Search(ctx, "turn", 1); err != nil {
			t.Fatalf("round %d: search: %v", round, err)
		}
		checkIndex(t, db, "turn", "contents", "reading", "interrupted")
		runs, _ := db.ListRuns(ctx, list[0].ID)
		for _, r := range runs {
			if r.Status == store.RunRunning {
				t.Fatalf("round %d: run %s still running after repair", round, r.ID)
			}
		}
		partial += db.Repaired.Results
		kept = rows
		db.Close()
	}
	t.Logf("%d kills, %d rows, %d interrupted calls answered by repair", kills, len(kept), partial)
	if len(kept) == 0 {
		t.Fatal("the child never committed anything")
	}
}

// assertPaired checks every tool call in the messages has exactly one result.
func assertPaired(t *testing.T, rows []store.Chunk) {
	t.Helper()
	ms, err := store.Messages(rows)
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]bool{}
	for _, m := range ms {
		var w struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		}
		json.Unmarshal(m, &w)
		switch w.Role {
		case "assistant":
			if len(open) > 0 {
				t.Fatalf("assistant message while calls %v are open", open)
			}
			for _, c := range w.ToolCalls {
				open[c.ID] = true
			}
		case "tool":
			if !open[w.ToolCallID] {
				t.Fatalf("result for %s which is not open", w.ToolCallID)
			}
			delete(open, w.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls without results: %v", open)
	}
}

// runAndKill starts the appending child, lets it run for d after its first
// commit, kills it with SIGKILL and returns the last seq it reported committed.
func runAndKill(t *testing.T, path string, d time.Duration) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=append", childDB+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan int64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if n, err := strconv.ParseInt(sc.Text(), 10, 64); err == nil {
				lines <- n
			}
		}
	}()
	var last int64
	first, ok := <-lines
	if !ok {
		cmd.Wait()
		t.Fatal("child exited before committing anything")
	}
	last = first
	timer := time.NewTimer(d)
	defer timer.Stop()
loop:
	for {
		select {
		case n, ok := <-lines:
			if !ok {
				break loop
			}
			last = n
		case <-timer.C:
			cmd.Process.Kill() // SIGKILL
			// Drain: a line already written before the kill is committed too.
			for n := range lines {
				last = n
			}
			break loop
		}
	}
	cmd.Wait()
	return last
}

// childAppend is the child: it appends agent turns forever, printing each
// committed seq, until killed (or after 20 s, so no orphan outlives a
// crashed parent).
func childAppend(path string) {
	ctx := context.Background()
	time.AfterFunc(20*time.Second, func() { os.Exit(3) })
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		fail(err)
	}
	list, err := db.ListSessions(ctx)
	if err != nil {
		fail(err)
	}
	var id string
	if len(list) > 0 {
		id = list[0].ID
	} else {
		s, err := db.CreateSession(ctx, store.NewSession{Title: "kill"})
		if err != nil {
			fail(err)
		}
		id = s.ID
	}
	for turn := 0; ; turn++ {
		run, err := db.StartRun(ctx, store.NewRun{SessionID: id, Model: "m"})
		if err != nil {
			fail(err)
		}
		c1, c2 := fmt.Sprintf("%s-a", run.ID), fmt.Sprintf("%s-b", run.ID)
		steps := [][]store.NewChunk{
			{user(fmt.Sprintf("turn %d: please read two files", turn))},
			{assistant("reading", call(c1, "read_file", `{"path":"a"}`), call(c2, "read_file", `{"path":"b"}`))},
			{result(c1, "read_file", fmt.Sprintf("contents of a, turn %d", turn))},
			{result(c2, "read_file", fmt.Sprintf("contents of b, turn %d", turn))},
			{assistant(fmt.Sprintf("done with turn %d", turn))},
		}
		for _, s := range steps {
			rows, err := db.Append(ctx, id, run.ID, s...)
			if err != nil {
				fail(err)
			}
			fmt.Println(rows[len(rows)-1].Seq)
		}
		if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
			fail(err)
		}
	}
}
