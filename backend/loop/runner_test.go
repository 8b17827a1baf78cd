package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

func kinds(cs []store.Chunk) string {
	var k []string
	for _, c := range cs {
		k = append(k, string(c.Kind))
	}
	return strings.Join(k, " ")
}

func TestRunToolRoundOverTheWire(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "alpha\n")
	h.write("sub/b.txt", "beta\n")
	h.srv.Enqueue(
		fakeai.ToolCalls(
			fakeai.Call{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.txt"}`},
			fakeai.Call{ID: "call_b", Name: "list_dir", Arguments: `{"path":"sub"}`},
		).WithUsage(100, 20, 0),
		fakeai.Text("a.txt says alpha; sub holds b.txt").WithUsage(300, 10, 0),
	)
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "what is here?", SystemPrompt: "You are terse."})

	if res.Status != core.StopCompleted || res.Output != "a.txt says alpha; sub holds b.txt" {
		t.Fatalf("result = %+v", res)
	}
	if res.Turns != 2 || res.ToolCalls != 2 || res.InputTokens != 400 || res.OutputTokens != 30 {
		t.Errorf("counts = %+v", res)
	}
	if want := (400*1.0 + 30*2.0) / 1e6; res.CostUSD != want {
		t.Errorf("cost = %v, want %v", res.CostUSD, want)
	}
	if got := kinds(h.rows(sid)); got != "user assistant approval approval tool_result tool_result assistant" {
		t.Errorf("rows = %s", got)
	}
	// The stored run row is the structured result.
	run := runRow(t, h.db, sid, res.RunID)
	if string(run.Status) != "completed" || run.Output != res.Output || run.Turns != 2 || run.EndedAt.IsZero() {
		t.Errorf("run row = %+v", run)
	}

	reqs := h.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if reqs[0][0].Role != "system" || reqs[0][0].Content != "You are terse." {
		t.Errorf("first message = %+v, want the system prompt", reqs[0][0])
	}
	second := reqs[1]
	var results []string
	for _, m := range second {
		if m.Role == "tool" {
			results = append(results, m.ToolCallID+"="+m.Content)
		}
	}
	if len(results) != 2 || !strings.Contains(strings.Join(results, "|"), "alpha") || !strings.Contains(strings.Join(results, "|"), "b.txt") {
		t.Errorf("tool results sent back: %q", results)
	}
	// The earlier messages are re-sent byte for byte (prompt caches keep working).
	first, _ := json.Marshal(reqs[0])
	prefix, _ := json.Marshal(second[:len(reqs[0])])
	if string(first) != string(prefix) {
		t.Errorf("second request does not start with the first one's messages")
	}
	h.checkPairing()

	// Events: contiguous sequence numbers over must-deliver events, run_finished last.
	h.rec.waitFor(t, "run_finished", ofType(core.EventRunFinished, res.RunID))
	var last uint64
	seen := map[core.EventType]int{}
	for _, e := range h.rec.all() {
		seen[e.Type]++
		if e.SessionID != sid || e.RunID != res.RunID {
			t.Errorf("event %s stamped %s/%s", e.Type, e.SessionID, e.RunID)
		}
		if e.Type.Lossy() {
			if e.Seq != last {
				t.Errorf("delta carries seq %d after %d", e.Seq, last)
			}
			continue
		}
		if e.Seq != last+1 {
			t.Errorf("%s has seq %d after %d", e.Type, e.Seq, last)
		}
		last = e.Seq
	}
	for _, typ := range []core.EventType{core.EventRunStarted, core.EventTextDelta, core.EventAssistantMessage,
		core.EventToolCall, core.EventApprovalDecided, core.EventToolStarted, core.EventToolFinished,
		core.EventUsage, core.EventBudget, core.EventRunFinished} {
		if seen[typ] == 0 {
			t.Errorf("no %s event", typ)
		}
	}
	if all := h.rec.all(); all[len(all)-1].Type != core.EventRunFinished {
		t.Errorf("last event is %s", all[len(all)-1].Type)
	}
}

func TestDenialWithReasonReachesTheModel(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "call_rm", Name: "run_shell_command", Arguments: `{"command":"rm -rf build"}`}),
		fakeai.Text("understood"),
	)
	h.write("build/keep", "x")
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "clean", Mode: tools.ModeAsk})
	p := <-h.pending
	h.rec.waitFor(t, "approval_requested", ofType(core.EventApprovalRequested, id))
	if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: false, Reason: "build/ holds the release"}); err != nil {
		t.Fatal(err)
	}
	res := h.wait(id)
	if res.Status != core.StopCompleted {
		t.Fatalf("status %s (%s)", res.Status, res.Error)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "build/keep")); err != nil {
		t.Fatalf("denied command ran: %v", err)
	}
	msgs := h.requests()[1]
	tool := msgs[len(msgs)-1]
	if tool.Role != "tool" || !strings.Contains(tool.Content, "build/ holds the release") {
		t.Errorf("model got %+v, want the denial reason", tool)
	}
	h.checkPairing()
}

func TestNoTerminalAskDeniesButRunCompletes(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "w", Name: "write_file", Arguments: `{"path":"x.txt","content":"hi"}`}),
		fakeai.Text("ok"),
	)
	res := h.run(loop.RunSpec{Prompt: "write", Mode: tools.ModeDeny})
	if res.Status != core.StopCompleted {
		t.Fatalf("status %s", res.Status)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a denied write happened: %v", err)
	}
}

func TestCancelWhileToolRuns(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.ToolCalls(
		fakeai.Call{ID: "slow", Name: "run_shell_command", Arguments: `{"command":"sleep 30"}`},
		fakeai.Call{ID: "after", Name: "write_file", Arguments: `{"path":"never.txt","content":"x"}`},
	))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "wait"})
	h.rec.waitFor(t, "tool_started", ofType(core.EventToolStarted, id))
	start := time.Now()
	if !h.runner.Cancel(sid) {
		t.Fatal("Cancel found no run")
	}
	res := h.wait(id)
	if res.Status != core.StopCancelled {
		t.Fatalf("status %s", res.Status)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancel took %v", d) // generous: the shell is killed at once
	}
	var results []store.ToolResultPayload
	for _, c := range h.rows(sid) {
		if c.Kind == store.KindToolResult {
			var p store.ToolResultPayload
			_ = json.Unmarshal(c.Payload, &p)
			results = append(results, p)
		}
	}
	if len(results) != 2 {
		t.Fatalf("%d results, want one per call: %+v", len(results), results)
	}
	for _, r := range results {
		if !r.IsError || !strings.HasPrefix(r.Content, "cancelled") {
			t.Errorf("result %+v, want a cancelled error", r)
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, "never.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a call queued after the cancelled one still ran")
	}
	if _, running := h.runner.Running(sid); running {
		t.Error("session still marked running")
	}
}

func TestCancelWhileStreamingAndWhileAwaitingApproval(t *testing.T) {
	h := newHarness(t)
	// Streaming: the server stalls after a few deltas.
	h.srv.Enqueue(fakeai.Text("one two three four five six").StallAfter(2, 0))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "talk"})
	h.rec.waitFor(t, "text_delta", ofType(core.EventTextDelta, id))
	h.runner.Cancel(sid)
	if res := h.wait(id); res.Status != core.StopCancelled {
		t.Fatalf("streaming cancel: status %s", res.Status)
	}

	// Awaiting a person: the pending approval is withdrawn and the call answered.
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "e", Name: "write_file", Arguments: `{"path":"a","content":"b"}`}))
	id = h.start(loop.RunSpec{SessionID: sid, Prompt: "write", Mode: tools.ModeAsk})
	<-h.pending
	h.runner.Cancel(sid)
	if res := h.wait(id); res.Status != core.StopCancelled {
		t.Fatalf("approval cancel: status %s", res.Status)
	}
	if n := len(h.approver.Pending(sid)); n != 0 {
		t.Errorf("%d approvals still pending", n)
	}
	rows := h.rows(sid)
	lastRow := rows[len(rows)-1]
	if lastRow.Kind != store.KindToolResult || !strings.Contains(string(lastRow.Payload), "cancelled") {
		t.Errorf("last row %s %s, want the cancelled result", lastRow.Kind, lastRow.Payload)
	}
	// The session continues cleanly: the next request is valid.
	h.srv.Enqueue(fakeai.Text("fine"))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "go on"}); res.Status != core.StopCompleted {
		t.Fatalf("continue: %s %s", res.Status, res.Error)
	}
	h.checkPairing()
}

func TestSessionsRunIndependently(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"one.txt","content":"1"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "w2", Name: "write_file", Arguments: `{"path":"two.txt","content":"2"}`}),
	)
	s1, s2 := h.session(), h.session()
	id1 := h.start(loop.RunSpec{SessionID: s1, Prompt: "one", Mode: tools.ModeAsk})
	p1 := <-h.pending
	id2 := h.start(loop.RunSpec{SessionID: s2, Prompt: "two", Mode: tools.ModeAsk})
	p2 := <-h.pending
	if p1.SessionID == p2.SessionID {
		t.Fatal("both approvals from one session")
	}
	// A second run on a busy session is refused.
	if _, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: s1, Prompt: "x", Model: "fake-model"}); !errors.Is(err, loop.ErrBusy) {
		t.Errorf("second start: %v, want ErrBusy", err)
	}
	// Session two finishes while session one still waits for its person.
	h.srv.Enqueue(fakeai.Text("two done"))
	if err := h.approver.Decide(p2.SessionID, p2.Call.ID, tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	other := id2
	if p2.SessionID == s1 {
		other = id1
	}
	if res := h.wait(other); res.Status != core.StopCompleted {
		t.Fatalf("second session: %s", res.Status)
	}
	if _, running := h.runner.Running(p1.SessionID); !running {
		t.Fatal("first session stopped while waiting")
	}
	h.srv.Enqueue(fakeai.Text("one done"))
	if err := h.approver.Decide(p1.SessionID, p1.Call.ID, tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{id1, id2} {
		if res := h.wait(id); res.Status != core.StopCompleted {
			t.Errorf("run %s: %s", id, res.Status)
		}
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

func TestCutOffStreamsNeverRunTools(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  fakeai.Reply
		status core.StopReason
	}{
		{"length", fakeai.ToolCalls(fakeai.Call{ID: "w", Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}).WithFinish("length"), core.StopTruncated},
		{"content_filter", fakeai.TextThenTools("sure", fakeai.Call{ID: "w", Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}).WithFinish("content_filter"), core.StopRefused},
		{"gateway error mid-arguments", fakeai.Raw("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"w\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"{\\\"path\\\":\\\"x.t\"}}]}}]}\n\n" +
			"data: {\"error\":{\"message\":\"upstream gateway timeout\",\"type\":\"server_error\"}}\n\n"), core.StopProviderError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.Enqueue(tc.reply)
			sid := h.session()
			res := h.run(loop.RunSpec{SessionID: sid, Prompt: "write x"})
			if res.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", res.Status, res.Error, tc.status)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Error("a tool call of a cut-off stream ran")
			}
			for _, c := range h.rows(sid) {
				if c.Kind == store.KindToolResult || strings.Contains(string(c.Payload), "write_file") {
					t.Errorf("stored %s %s", c.Kind, c.Payload)
				}
			}
			if tc.status == core.StopProviderError && !strings.Contains(res.Error, "upstream gateway timeout") {
				t.Errorf("error %q lost the server's message", res.Error)
			}
		})
	}
}

func TestBoundsOverTheWire(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "a")
	same := fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}
	h.srv.Enqueue(fakeai.ToolCalls(same), fakeai.ToolCalls(same), fakeai.ToolCalls(same), fakeai.ToolCalls(same))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "loop"})
	if res.Status != core.StopLoopDetected {
		t.Fatalf("status %s", res.Status)
	}
	reqs := h.requests()
	third := reqs[3]
	if got := third[len(third)-1]; !strings.Contains(got.Content, "change your approach") {
		t.Errorf("third identical call answered %q", got.Content)
	}
	h.checkPairing()

	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{}`}), fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"."}`}))
	res = h.run(loop.RunSpec{Prompt: "explore", Limits: core.Limits{MaxTurns: 2}})
	if res.Status != core.StopMaxTurns || res.Turns != 2 {
		t.Fatalf("max turns: %+v", res)
	}
	// The soft limit asked the model to wrap up on its last turn, in Loopdesk's note frame.
	last := h.requests()[len(h.requests())-1]
	if got := last[len(last)-1].Content; !strings.Contains(got, "nearly used up") || !strings.HasPrefix(got, store.NotePrefix) {
		t.Errorf("last request does not ask to wrap up: %+v", last[len(last)-1])
	}
}

func TestCompactionOverTheWire(t *testing.T) {
	h := newHarness(t)
	h.write("big.txt", strings.Repeat("lorem ipsum dolor sit amet\n", 120))
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "r1", Name: "read_file", Arguments: `{"path":"big.txt"}`}).WithUsage(200, 10, 0),
		fakeai.ToolCalls(fakeai.Call{ID: "r2", Name: "list_dir", Arguments: `{}`}).WithUsage(1250, 10, 0),
		fakeai.Text("The file repeats lorem ipsum.").WithUsage(900, 20, 0), // the summary
		fakeai.Text("It is filler text.").WithUsage(400, 5, 0),
	)
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "what is in big.txt?", Limits: core.Limits{ContextWindow: 1500, KeepTurns: 1}})
	if res.Status != core.StopCompleted {
		t.Fatalf("status %s (%s)", res.Status, res.Error)
	}
	rows := h.rows(sid)
	if got := kinds(rows); !strings.Contains(got, "summary") {
		t.Fatalf("no summary row: %s", got)
	}
	h.rec.waitFor(t, "compacted", ofType(core.EventCompacted, res.RunID))
	reqs := h.requests()
	final := reqs[len(reqs)-1]
	if final[0].Role != "user" || !strings.HasPrefix(final[0].Content, store.NotePrefix) ||
		!strings.HasSuffix(final[0].Content, "\n\nThe file repeats lorem ipsum.") {
		t.Errorf("final request starts with %+v, want the summary framed as Loopdesk's note", final[0])
	}
	for _, m := range final {
		if strings.Contains(m.Content, "lorem ipsum dolor") {
			t.Error("the summarised file content was still sent")
		}
	}
	h.checkPairing()
}

// Whoever sees run_finished may start the next run on the session at once (the window does
// exactly that when the person has typed ahead).
func TestNextRunCanStartOnRunFinished(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.Text("first"), fakeai.Text("second"))
	sid := h.session()
	next := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := h.runner.Bus().Subscribe(ctx, sid, func(e bus.Event) {
		if e.Type == core.EventRunFinished && e.Payload.(core.RunFinishedPayload).Output == "first" {
			_, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "again", Model: "fake-model", Mode: tools.ModeAuto})
			next <- err
		}
	})
	defer func() { cancel(); <-exited }()
	h.start(loop.RunSpec{SessionID: sid, Prompt: "one"})
	if err := <-next; err != nil {
		t.Fatalf("starting the next run from run_finished: %v", err)
	}
}
