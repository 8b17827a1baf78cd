package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// BenchmarkTaskChildren: a parent turn starting four children, each doing the same
// scripted work (a read-only tool turn, then an answer, each model reply streaming with a
// delay like a real server's), against a parent turn starting one child doing it, in the same
// run. x_four_vs_one is the ratio of the two parents' wall times (goal: at most 1.3): the
// children of one turn run in parallel, so four should cost about as much as one.
func BenchmarkTaskChildren(b *testing.B) {
	srv, err := fakeai.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dir := b.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	reg, _ := tools.NewRegistry(tools.Builtins()...)
	model := provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "k", Model: "fake-model", MaxRetries: -1})
	r := loop.New(loop.Config{Store: db, Model: model, Approver: tools.NewApprover(nil), Tools: reg, Workspaces: tools.NewManager(),
		Children: task.NewDriver(task.Config{}, db)})
	defer r.Close()
	var four, one time.Duration
	for i := 0; i < b.N; i++ {
		four += benchParent(b, r, srv, db, ws, fmt.Sprintf("four-%d", i), 4)
		one += benchParent(b, r, srv, db, ws, fmt.Sprintf("one-%d", i), 1)
	}
	b.ReportMetric(float64(four.Milliseconds())/float64(b.N), "ms_four_children")
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "ms_one_child")
	b.ReportMetric(float64(four)/float64(one), "x_four_vs_one")
}

// benchParent runs one parent whose first turn starts n children and returns its wall time.
func benchParent(b *testing.B, r *loop.Runner, srv *fakeai.Server, db *store.DB, ws, tag string, n int) time.Duration {
	b.Helper()
	const delay = 10 * time.Millisecond // per streamed delta: each reply takes about 60-80 ms
	var calls []fakeai.Call
	for k := 0; k < n; k++ {
		marker := fmt.Sprintf("[%s-child-%d]", tag, k)
		calls = append(calls, taskCall(fmt.Sprintf("t%d", k), "part", marker+" look around and report"))
		srv.EnqueueFor(marker,
			fakeai.ToolCalls(fakeai.Call{ID: "l1", Name: "list_dir", Arguments: `{}`}).WithDelay(delay),
			fakeai.Text("the folder holds nothing of note at all").WithDelay(delay))
	}
	parent := "[" + tag + "-parent]"
	srv.EnqueueFor(parent, fakeai.ToolCalls(calls...), fakeai.Text("done"))
	s, err := db.CreateSession(context.Background(), store.NewSession{Title: tag, Workspace: ws, Model: "fake-model"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	id, err := r.Start(context.Background(), loop.RunSpec{SessionID: s.ID, Prompt: parent + " split the work", Model: "fake-model", Mode: tools.ModeAuto})
	if err != nil {
		b.Fatal(err)
	}
	res, err := r.Wait(context.Background(), id)
	if err != nil || res.Status != core.StopCompleted {
		b.Fatalf("parent %+v %v", res, err)
	}
	return time.Since(start)
}
