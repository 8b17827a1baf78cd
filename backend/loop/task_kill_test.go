package loop_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// SIGKILL while a child session works: on reopen the child's run is interrupted, the parent's
// task call has an interrupted result naming the child, nothing is left unanswered, and the
// parent continues with a valid request.
func TestTaskSIGKILLMidChildThenContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess kill test")
	}
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "slow child", "[child] take your time")))
	srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{}`}), fakeai.Stall(0))
	dir := t.TempDir()
	dbPath, ws := filepath.Join(dir, "kill.db"), filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"=task", killDBEnv+"="+dbPath, killURLEnv+"="+srv.URL(), killWSEnv+"="+ws)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The parent's turn, the child's first turn, and the child's second call under way.
	waitFor(t, func() bool { return len(srv.Requests()) >= 3 })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var parent, child store.Session
	list, _ := db.ListSessions(ctx)
	for _, s := range list {
		if s.ParentCallID == "" {
			parent = s
		} else {
			child = s
		}
	}
	if len(list) != 2 || child.ParentID != parent.ID || child.ParentCallID != "t1" {
		t.Fatalf("sessions after the kill: %+v", list)
	}
	for _, s := range list {
		runs, _ := db.ListRuns(ctx, s.ID)
		if len(runs) != 1 || runs[0].Status != store.RunInterrupted {
			t.Fatalf("runs of %s after the kill: %+v", s.Title, runs)
		}
		if u := unanswered(t, mustChunks(t, db, s.ID)); len(u) != 0 {
			t.Fatalf("%s: unanswered calls %v", s.Title, u)
		}
	}
	got := resultOf(t, mustChunks(t, db, parent.ID), "t1")
	if !got.IsError || !strings.HasPrefix(got.Content, store.Interrupted) || !strings.Contains(got.Content, child.ID) {
		t.Fatalf("the parent's task call after the kill: %+v", got)
	}

	// The parent continues: its next request pairs the task call with the interrupted result.
	srv.EnqueueFor("[parent]", fakeai.Text("I will redo that part myself."))
	model := provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "k", Model: "fake-model", MaxRetries: -1})
	r := loop.New(loop.Config{Store: db, Model: model, Approver: tools.NewApprover(nil), Tools: toolsOf(t), Workspaces: wsOf(),
		Children: task.NewDriver(task.Config{}, db)})
	defer r.Close()
	id, err := r.Start(ctx, loop.RunSpec{SessionID: parent.ID, Prompt: "go on", Model: "fake-model", Mode: tools.ModeAuto})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if res, err := r.Wait(wctx, id); err != nil || res.Status != core.StopCompleted {
		t.Fatalf("continue after the kill: %+v %v", res, err)
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, `"tool_call_id":"t1"`) || !strings.Contains(last, child.ID) {
		t.Fatalf("the parent's next request should carry the interrupted result naming the child: %s", last)
	}
}

func mustChunks(t *testing.T, db *store.DB, id string) []store.Chunk {
	t.Helper()
	cs, err := db.Chunks(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// killTaskChild is the app in the kill test: a parent whose task call starts a child, until
// killed.
func killTaskChild() {
	ctx := context.Background()
	time.AfterFunc(30*time.Second, func() { os.Exit(3) })
	db, err := store.Open(ctx, os.Getenv(killDBEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	reg, _ := tools.NewRegistry(tools.Builtins()...)
	model := provider.New(provider.Config{BaseURL: os.Getenv(killURLEnv), APIKey: "k", Model: "fake-model", MaxRetries: -1})
	r := loop.New(loop.Config{Store: db, Model: model, Approver: tools.NewApprover(nil), Tools: reg, Workspaces: tools.NewManager(),
		Children: task.NewDriver(task.Config{}, db)})
	s, _ := db.CreateSession(ctx, store.NewSession{Title: "parent", Workspace: os.Getenv(killWSEnv)})
	id, err := r.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: "[parent] delegate", Model: "fake-model", Mode: tools.ModeAuto})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	r.Wait(ctx, id)
	os.Exit(0)
}
