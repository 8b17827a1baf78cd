package loop_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

const (
	killChildEnv = "LOOPDESK_LOOP_TEST_CHILD"
	killDBEnv    = "LOOPDESK_LOOP_TEST_DB"
	killURLEnv   = "LOOPDESK_LOOP_TEST_URL"
	killWSEnv    = "LOOPDESK_LOOP_TEST_WS"
)

func TestMain(m *testing.M) {
	switch os.Getenv(killChildEnv) {
	case "run":
		killChild()
		return
	case "task":
		killTaskChild() // task_kill_test.go
		return
	}
	os.Exit(m.Run())
}

// A run killed right after a model turn that reported usage keeps that turn's tokens and
// cost: on the run row, in the session's totals, and equal to the sum of its rows.
func TestSIGKILLAfterAModelTurnKeepsItsSpend(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess kill test")
	}
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{}`}).WithUsage(5_000, 700, 1_000),
		fakeai.Stall(0), // the next answer never comes: the process is killed while waiting
	)
	dir := t.TempDir()
	dbPath, ws := filepath.Join(dir, "kill.db"), filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"=run", killDBEnv+"="+dbPath, killURLEnv+"="+srv.URL(), killWSEnv+"="+ws)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Ready to kill once the second model call is under way: the first turn is stored.
	waitFor(t, func() bool { return len(srv.Requests()) >= 2 })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, _ := db.ListSessions(ctx)
	runs, _ := db.ListRuns(ctx, list[0].ID)
	if len(runs) != 1 || runs[0].Status != store.RunInterrupted {
		t.Fatalf("runs after the kill: %+v", runs)
	}
	// 5,000 input tokens of which 1,000 cached at $1/M, 700 output at $4/M.
	wantCost := 5_000*1.0/1e6 + 700*4.0/1e6
	r := runs[0]
	if r.Turns != 1 || r.ToolCalls != 1 || r.InputTokens != 5_000 || r.OutputTokens != 700 || r.CacheReadTokens != 1_000 ||
		fmt.Sprintf("%.6f", r.CostUSD) != fmt.Sprintf("%.6f", wantCost) {
		t.Fatalf("the killed run's counters: %+v, want 1 turn, 5000/700 tokens, $%.6f", r.Counters, wantCost)
	}
	derived, err := db.RunCounters(ctx, list[0].ID, r.ID)
	if err != nil || derived != r.Counters {
		t.Fatalf("run row %+v, its rows sum to %+v (%v)", r.Counters, derived, err)
	}
	tot, _ := db.SessionTotals(ctx, list[0].ID)
	if tot.InputTokens != 5_000 || tot.OutputTokens != 700 || tot.CacheReadTokens != 1_000 || tot.Turns != 1 {
		t.Fatalf("session totals after the kill: %+v", tot)
	}
}

// killChild is the app in the kill test: one run against the fake server, until killed.
func killChild() {
	ctx := context.Background()
	time.AfterFunc(30*time.Second, func() { os.Exit(3) })
	db, err := store.Open(ctx, os.Getenv(killDBEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	reg, _ := tools.NewRegistry(tools.Builtins()...)
	model := provider.New(provider.Config{BaseURL: os.Getenv(killURLEnv), APIKey: "k", Model: "fake-model", MaxRetries: -1})
	r := loop.New(loop.Config{Store: db, Model: model, Approver: tools.NewApprover(nil), Tools: reg, Workspaces: tools.NewManager()})
	s, _ := db.CreateSession(ctx, store.NewSession{Title: "kill", Workspace: os.Getenv(killWSEnv)})
	id, err := r.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: "look", Model: "fake-model", Mode: tools.ModeAuto,
		Limits: core.Limits{Price: core.Price{InputPerMTok: 1, OutputPerMTok: 4}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	r.Wait(ctx, id)
	os.Exit(0)
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
