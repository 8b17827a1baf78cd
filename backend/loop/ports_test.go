package loop_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Extensions wrap a run's ports in the order configured, the first outermost, and each sees
// the run it wraps: a call is asked about through every approver wrapper on the way in and
// comes back through them on the way out, and runs through every tool wrapper the same way.
func TestExtensionsWrapThePortsFirstOutermost(t *testing.T) {
	var (
		mu    sync.Mutex
		trace []string
		runs  []loop.RunInfo
	)
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, s)
	}
	named := func(name string) loop.Extension {
		return func(_ context.Context, run loop.RunInfo, next loop.Ports) loop.Ports {
			mu.Lock()
			runs = append(runs, run)
			mu.Unlock()
			approve := next.Approver
			next.Approver = loop.ApproverFunc(func(ctx context.Context, req tools.Request) (tools.Decision, error) {
				note(name + " asks")
				d, err := approve.Request(ctx, req)
				note(name + " decided")
				return d, err
			})
			next.Tools = tracedTools{ToolRunner: next.Tools, name: name, note: note}
			return next
		}
	}
	h := newHarnessWith(t, func(c *loop.Config) {
		c.Extensions = append([]loop.Extension{named("outer"), named("inner")}, c.Extensions...)
	})
	h.write("a.txt", "alpha\n")
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}), fakeai.Text("read"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "read a.txt", Mode: tools.ModeAuto})
	if res.Status != core.StopCompleted {
		t.Fatalf("%s: %s", res.Status, res.Error)
	}
	want := []string{"outer asks", "inner asks", "inner decided", "outer decided", "outer runs", "inner runs", "inner ran", "outer ran"}
	if !slices.Equal(trace, want) {
		t.Fatalf("trace %v, want %v", trace, want)
	}
	if len(runs) != 2 || runs[0].SessionID != sid || runs[0].RunID != res.RunID || runs[0].Mode != tools.ModeAuto || runs[0].Workspace == nil {
		t.Fatalf("the extensions saw %+v", runs)
	}
}

type tracedTools struct {
	loop.ToolRunner
	name string
	note func(string)
}

func (t tracedTools) Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result {
	t.note(t.name + " runs")
	defer t.note(t.name + " ran")
	return t.ToolRunner.Run(ctx, ws, call, out)
}
