package loop_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A call of a child session left waiting for the person 40 minutes does not stop its parent
// with timeout under a 30-minute time budget: while a child (or a grandchild) waits, every
// ancestor sets the time aside as for its own approvals, and the parent goes on to its answer
// once the person approves. Each run's row keeps its own time, the wait left out.
func TestChildApprovalWaitDoesNotCountAgainstTheParentsTimeBudget(t *testing.T) {
	nester := agents.Definition{Name: "nester", Description: "delegates further", Prompt: "You delegate.",
		Tools: []string{"write_file", "task"}}
	for _, tc := range []struct {
		name string
		// script queues the replies; it returns the markers of the sessions above the one
		// whose call waits, parent first.
		script func(srv *fakeai.Server) []string
	}{
		{"child", func(srv *fakeai.Server) []string {
			srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "write", "[child] write a.txt")), fakeai.Text("All done."))
			srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"beta\n"}`}),
				fakeai.Text("Wrote a.txt."))
			return []string{"[parent]"}
		}},
		{"grandchild", func(srv *fakeai.Server) []string {
			srv.EnqueueFor("[parent]", fakeai.ToolCalls(agentCall("t1", "nest", "[nester] get a.txt written", "nester")), fakeai.Text("All done."))
			srv.EnqueueFor("[nester]", fakeai.ToolCalls(taskCall("n1", "write", "[grandchild] write a.txt")), fakeai.Text("Had it written."))
			srv.EnqueueFor("[grandchild]", fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"beta\n"}`}),
				fakeai.Text("Wrote a.txt."))
			return []string{"[parent]", "[nester]"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Now()}
			h := newHarnessWith(t, func(c *loop.Config) {
				c.Now = clock.Now
				c.Children = task.NewDriver(task.Config{Agents: func(string) []agents.Definition { return []agents.Definition{nester} }}, c.Store.(task.Store))
			})
			above := tc.script(h.srv)
			sid := h.session()
			id := h.start(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAsk,
				Limits: core.Limits{Timeout: 30 * time.Minute}})
			var p tools.Pending
			select {
			case p = <-h.pending: // the task calls run unasked: this is the write
			case <-time.After(30 * time.Second):
				t.Fatal("never asked about the child's write_file")
			}
			if p.Call.Name != "write_file" || p.SessionID == sid {
				t.Fatalf("asked about %s in session %s; want the child's write_file", p.Call.Name, p.SessionID)
			}
			clock.Advance(40 * time.Minute) // the person was away
			if err := h.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: true}); err != nil {
				t.Fatal(err)
			}
			res := h.wait(id)
			if res.Status != core.StopCompleted || res.Output != "All done." {
				t.Fatalf("after a child's 40-minute wait for approval under a 30-minute budget: %s %q (%s)", res.Status, res.Output, res.Error)
			}
			if b, err := os.ReadFile(filepath.Join(h.ws, "a.txt")); err != nil || string(b) != "beta\n" {
				t.Fatalf("a.txt = %q, %v: the approved call did not run", b, err)
			}
			// Every run of the family completed and kept its own time, the wait left out.
			sessions := family(t, h, sid)
			if len(sessions) != len(above)+1 {
				t.Fatalf("sessions %v; want %d", sessions, len(above)+1)
			}
			for _, s := range sessions {
				runs, err := h.db.ListRuns(context.Background(), s)
				if err != nil || len(runs) != 1 {
					t.Fatalf("runs of %s: %+v, %v", s, runs, err)
				}
				if r := runs[0]; string(r.Status) != string(core.StopCompleted) || r.WorkedMS == nil || *r.WorkedMS >= 60_000 {
					t.Fatalf("run of %s: %s, worked %v ms; want completed in under a minute of its own time", s, r.Status, r.WorkedMS)
				}
			}
		})
	}
}

// family is sid and the sessions started under it by task calls, their children's included.
func family(t *testing.T, h *harness, sid string) []string {
	t.Helper()
	kids, err := h.db.Children(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{sid}
	for _, k := range kids {
		out = append(out, family(t, h, k.ID)...)
	}
	return out
}
