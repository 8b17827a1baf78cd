package loop_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The journal keeps every fact: spend on the rows, a durable queue, Stop that
// stops, bounds that are not bypassed.

// queueWhileApproving starts a run whose first call waits for a person, queues text on it and
// returns the run id and the pending call.
func queueWhileApproving(t *testing.T, h *harness, sid string, spec loop.RunSpec, text string) (string, tools.Pending) {
	t.Helper()
	spec.SessionID, spec.Mode = sid, tools.ModeAsk
	id := h.start(spec)
	p := <-h.pending
	if _, err := h.runner.Queue(context.Background(), sid, text); err != nil {
		t.Fatal(err)
	}
	return id, p
}

func assertStillQueued(t *testing.T, h *harness, sid, text string, runs int) {
	t.Helper()
	ctx := context.Background()
	q, err := h.db.Queued(ctx, sid)
	if err != nil || len(q) != 1 || q[0].Text != text {
		t.Fatalf("queued after the run: %+v %v, want %q still queued", q, err, text)
	}
	stored, _ := h.db.Queued(ctx, sid)
	if len(stored) != 1 {
		t.Fatalf("the store holds %d queued messages, want 1", len(stored))
	}
	if all, _ := h.db.ListRuns(ctx, sid); len(all) != runs {
		t.Fatalf("%d runs, want %d: a stopped run started another", len(all), runs)
	}
	for _, r := range h.rows(sid) {
		if r.Kind == store.KindUser && strings.Contains(string(r.Payload), text) {
			t.Fatalf("the queued message became row %d", r.Seq)
		}
	}
}

func TestStopWithAQueuedMessageStopsAndKeepsIt(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"a"}`}))
	sid := h.session()
	id, _ := queueWhileApproving(t, h, sid, loop.RunSpec{Prompt: "write a"}, "and then b")
	if !h.runner.Cancel(sid) {
		t.Fatal("no run to cancel")
	}
	if res := h.wait(id); res.Status != core.StopCancelled {
		t.Fatalf("status %s", res.Status)
	}
	assertStillQueued(t, h, sid, "and then b", 1)
	if n := len(h.requests()); n != 1 {
		t.Fatalf("%d model requests after Stop, want 1", n)
	}
}

func TestBoundWithAQueuedMessageStartsNoRun(t *testing.T) {
	cases := map[string]struct {
		replies []fakeai.Reply
		limits  core.Limits
		want    core.StopReason
	}{
		"max_turns": {
			replies: []fakeai.Reply{fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"a"}`})},
			limits:  core.Limits{MaxTurns: 1},
			want:    core.StopMaxTurns,
		},
		"cost_budget": {
			replies: []fakeai.Reply{
				fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"a"}`}).WithUsage(100, 10, 0),
				// The second answer's spend ends the run; it streams slowly enough for the message
				// to be queued while the model is answering, after the first tool boundary.
				fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "write_file", Arguments: `{"path":"b.txt","content":"b"}`}).
					WithUsage(900_000, 10, 0).WithDelay(300 * time.Millisecond),
			},
			limits: core.Limits{MaxCostUSD: 1, Price: core.Price{InputPerMTok: 2, OutputPerMTok: 2}},
			want:   core.StopCostBudget,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.Enqueue(tc.replies...)
			sid := h.session()
			var id string
			if tc.want == core.StopCostBudget {
				id = h.start(loop.RunSpec{SessionID: sid, Prompt: "write", Limits: tc.limits, Mode: tools.ModeAuto})
				waitRequests(t, h, 2) // the second model call is under way
				if _, err := h.runner.Queue(context.Background(), sid, "then stop"); err != nil {
					t.Fatal(err)
				}
			} else {
				var p tools.Pending
				id, p = queueWhileApproving(t, h, sid, loop.RunSpec{Prompt: "write", Limits: tc.limits}, "then stop")
				if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: true}); err != nil {
					t.Fatal(err)
				}
			}
			res := h.wait(id)
			if res.Status != tc.want {
				t.Fatalf("status %s (%s), want %s", res.Status, res.Error, tc.want)
			}
			assertStillQueued(t, h, sid, "then stop", 1)
		})
	}
}

// A completed run still delivers what is left as the next run, and the queued row names
// the message it delivered, which leaves the queue in the same transaction.
func TestCompletedRunDeliversLeftoverQueue(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	// The answer streams slowly enough (a pause before each delta) for the message to be queued while the model is answering;
	// the run completes without another tool boundary, so the message is left over.
	h.srv.Enqueue(fakeai.Text("done").WithDelay(300*time.Millisecond), fakeai.Text("and the second"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "first"})
	waitRequests(t, h, 1)
	if _, err := h.runner.Queue(ctx, sid, "second"); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("first run: %s", res.Status)
	}
	runs, _ := h.db.ListRuns(ctx, sid)
	if len(runs) != 2 {
		t.Fatalf("%d runs after a completed run with a message left, want 2", len(runs))
	}
	if next := h.wait(runs[1].ID); next.Status != core.StopCompleted {
		t.Fatalf("the next run: %s", next.Status)
	}
	if q, _ := h.db.Queued(ctx, sid); len(q) != 0 {
		t.Fatalf("still queued after it was delivered: %+v", q)
	}
	var delivered bool
	for _, r := range h.rows(sid) {
		delivered = delivered || (r.Kind == store.KindUser && strings.Contains(string(r.Payload), `"text":"second","queued_id":"q`))
	}
	if !delivered {
		t.Fatalf("the delivering row does not name its queued message: %v", kinds(h.rows(sid)))
	}
}

// A message queued before a crash is still queued after it: a new runner on the same database
// lists it and the next run delivers it right after its prompt.
func TestQueueSurvivesARestart(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	sid := h.session()
	if err := h.db.Enqueue(ctx, sid, store.QueuedMessage{ID: "q1", Text: "left from before", QueuedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if q, _ := h.db.Queued(ctx, sid); len(q) != 1 || q[0].ID != "q1" {
		t.Fatalf("queued after a restart: %+v", q)
	}
	h.srv.Enqueue(fakeai.Text("ok"))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "now this"}); res.Status != core.StopCompleted {
		t.Fatalf("%s", res.Status)
	}
	reqs := h.requests()
	msgs := reqs[len(reqs)-1]
	if len(msgs) < 2 || msgs[len(msgs)-2].Content != "now this" || msgs[len(msgs)-1].Content != "left from before" {
		t.Fatalf("request %+v: want the prompt, then the queued message", msgs)
	}
	if q, _ := h.db.Queued(ctx, sid); len(q) != 0 {
		t.Fatalf("delivered but still queued: %+v", q)
	}
}

// waitRequests polls until the fake server has received n requests.
func waitRequests(t *testing.T, h *harness, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(h.srv.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server received %d requests, want %d", len(h.srv.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The run row, run_finished and the sum of the run's rows are the same numbers, whatever
// the run did: tool turns, a failed model call, a final answer.
func TestRunCountersEqualTheJournal(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "1", Name: "list_dir", Arguments: `{}`}, fakeai.Call{ID: "2", Name: "list_dir", Arguments: `{"path":"."}`}).WithUsage(1200, 40, 200),
		fakeai.Text("There is nothing here.").WithUsage(1500, 12, 1000),
		fakeai.HTTPError(500, "boom"),
	)
	sid := h.session()
	first := h.run(loop.RunSpec{SessionID: sid, Prompt: "what is here?"})
	second := h.run(loop.RunSpec{SessionID: sid, Prompt: "again"})
	if first.Status != core.StopCompleted || second.Status != core.StopProviderError {
		t.Fatalf("statuses %s %s", first.Status, second.Status)
	}
	runs, _ := h.db.ListRuns(ctx, sid)
	for i, res := range []core.Result{first, second} {
		r := runs[i]
		derived, err := h.db.RunCounters(ctx, sid, r.ID)
		if err != nil || derived != r.Counters {
			t.Fatalf("run %d: row %+v, rows sum to %+v (%v)", i+1, r.Counters, derived, err)
		}
		if res.Turns != r.Turns || res.ToolCalls != r.ToolCalls || res.InputTokens != r.InputTokens ||
			res.OutputTokens != r.OutputTokens || res.CostUSD != r.CostUSD || res.CacheReadTokens != r.CacheReadTokens {
			t.Fatalf("run %d: run_finished %+v, run row %+v", i+1, res, r.Counters)
		}
	}
	if r := runs[0]; r.Turns != 2 || r.ToolCalls != 2 || r.InputTokens != 2700 || r.CacheReadTokens != 1200 || r.OutputTokens != 52 {
		t.Fatalf("first run: %+v", r.Counters)
	}
	// The failed call is a turn with its spend unknown, kept on a usage row.
	if r := runs[1]; r.Turns != 1 || r.InputTokens != 0 {
		t.Fatalf("second run: %+v", r.Counters)
	}
	rows := h.rows(sid)
	if last := rows[len(rows)-1]; last.Kind != store.KindUsage || !strings.Contains(string(last.Payload), `"unreported":true`) {
		t.Fatalf("last row %s %s, want the failed call's usage row, unreported", last.Kind, last.Payload)
	}
	tot, _ := h.db.SessionTotals(ctx, sid)
	if tot.Turns != 3 || tot.InputTokens != 2700 || tot.CacheReadTokens != 1200 || tot.Cost != runs[0].CostUSD {
		t.Fatalf("totals %+v", tot)
	}
}
