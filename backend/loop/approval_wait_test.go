package loop_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// fakeClock is the runner's clock (Config.Now), moved on by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// A call left waiting for the person 40 minutes under a 30-minute time budget does not stop
// the run with timeout: the budget counts the model's and the tools' time, and the run goes
// on to the model's answer once the person approves. The run's meters say what was counted.
func TestApprovalWaitDoesNotCountAgainstTheTimeBudget(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	h := newHarnessWith(t, func(c *loop.Config) { c.Now = clock.Now })
	h.write("a.txt", "alpha\n")
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"beta\n"}`}),
		fakeai.Text("Rewrote a.txt."))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "rewrite a.txt", Mode: tools.ModeAsk,
		Limits: core.Limits{Timeout: 30 * time.Minute}})
	var p tools.Pending
	select {
	case p = <-h.pending:
	case <-time.After(30 * time.Second):
		t.Fatal("never asked about write_file")
	}
	clock.Advance(40 * time.Minute) // the person was away
	if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	res := h.wait(id)
	if res.Status != core.StopCompleted || res.Output != "Rewrote a.txt." {
		t.Fatalf("after a 40-minute wait for approval under a 30-minute budget: %s %q (%s)", res.Status, res.Output, res.Error)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "a.txt")); err != nil || string(b) != "beta\n" {
		t.Fatalf("a.txt = %q, %v: the approved call did not run", b, err)
	}
	var clockMeter *core.Meter
	for _, ev := range h.rec.all() {
		if b, ok := ev.Payload.(core.BudgetPayload); ok {
			for i := range b.Meters {
				if b.Meters[i].Key == core.MeterTime {
					clockMeter = &b.Meters[i]
				}
			}
		}
	}
	if clockMeter == nil || clockMeter.Value >= 60 || clockMeter.Note == "" {
		t.Fatalf("the Time meter after the run: %+v; want the run's own seconds and a note saying the wait is left out", clockMeter)
	}
	// The run's row keeps that time, for the meter of the session opened again later.
	runs, err := h.db.ListRuns(context.Background(), sid)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	if w := runs[0].WorkedMS; w == nil || *w >= 60_000 {
		t.Fatalf("the run's row keeps %v ms of its own time; want under a minute, the 40-minute wait left out", w)
	}
}
