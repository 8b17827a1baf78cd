package loop_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// barrierTools wraps the real registry: read-only calls wait until `want` of them have started
// (so the first group must run in parallel, or it gives up with an error), and every call is
// logged in start order.
type barrierTools struct {
	*tools.Registry
	want int

	mu      sync.Mutex
	running int
	all     chan struct{}
	log     []string
}

func (b *barrierTools) Run(ctx context.Context, ws *tools.Workspace, c tools.Call, out func(string)) tools.Result {
	spec, _ := b.Lookup(c.Name)
	b.mu.Lock()
	b.log = append(b.log, c.ID)
	if spec != nil && spec.ReadOnly() {
		b.running++
		if b.running == b.want {
			close(b.all)
		}
	}
	b.mu.Unlock()
	if spec != nil && spec.ReadOnly() {
		select {
		case <-b.all:
		case <-time.After(10 * time.Second):
			return tools.Result{Content: "read-only calls did not run in parallel", IsError: true}
		}
	}
	return b.Registry.Run(ctx, ws, c, out)
}

func TestReadOnlyCallsRunInParallelWritesInOrder(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "old")
	bt := &barrierTools{Registry: toolsOf(t), want: 2, all: make(chan struct{})}
	r := loop.New(loop.Config{Store: h.db, Model: modelOf(h), Approver: h.approver, Tools: bt, Workspaces: wsOf()})
	defer r.Close()
	h.srv.Enqueue(fakeai.ToolCalls(
		fakeai.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"a.txt"}`},
		fakeai.Call{ID: "r2", Name: "list_dir", Arguments: `{}`},
		fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"new"}`},
		fakeai.Call{ID: "r3", Name: "read_file", Arguments: `{"path":"a.txt"}`},
	), fakeai.Text("done"))
	sid := h.session()
	id, err := r.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "x", Model: "fake-model", Mode: tools.ModeAuto})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait(context.Background(), id)
	if err != nil || res.Status != core.StopCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	reqs := h.requests()
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1] {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	if strings.Contains(results["r1"], "parallel") || strings.Contains(results["r2"], "parallel") {
		t.Errorf("read-only calls ran one after the other: %q", results)
	}
	if !strings.Contains(results["r1"], "old") || !strings.Contains(results["r3"], "new") {
		t.Errorf("the write did not separate the reads before and after it: r1=%q r3=%q", results["r1"], results["r3"])
	}
	bt.mu.Lock()
	order := strings.Join(bt.log, " ")
	bt.mu.Unlock()
	if !strings.HasSuffix(order, "w1 r3") {
		t.Errorf("start order %q: the write must start after both reads and before the last read", order)
	}
	h.checkPairing()
}
