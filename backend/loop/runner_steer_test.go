package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// A message sent while a 5-call turn waits is delivered after all 5 results are stored and
// reaches the next model request; every call stays paired with its one result.
func TestQueuedMessageDuringFiveCallTurn(t *testing.T) {
	h := newHarness(t)
	var calls []fakeai.Call
	for i := 1; i <= 5; i++ {
		h.write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("line %d\n", i))
		calls = append(calls, fakeai.Call{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.txt"}`, i)})
	}
	h.srv.Enqueue(fakeai.ToolCalls(calls...), fakeai.Text("five files, and I counted the lines"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "read the five files", Mode: tools.ModeAsk})
	var pending []tools.Pending
	for range 5 {
		pending = append(pending, <-h.pending)
	}
	if _, err := h.runner.Queue(context.Background(), sid, "also count the lines"); err != nil {
		t.Fatal(err)
	}
	drop, err := h.runner.Queue(context.Background(), sid, "never mind")
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := h.db.Queued(context.Background(), sid); len(q) != 2 || q[0].Text != "also count the lines" {
		t.Fatalf("queue while waiting: %+v", q)
	}
	if ok, err := h.runner.Withdraw(context.Background(), sid, drop.ID); !ok || err != nil {
		t.Fatalf("withdraw: %v %v", ok, err)
	}
	for _, p := range pending {
		if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: true}); err != nil {
			t.Fatal(err)
		}
	}
	if res := h.wait(id); res.Status != core.StopCompleted || res.Turns != 2 {
		t.Fatalf("result %+v", res)
	}
	h.checkPairing()
	reqs := h.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	second := reqs[1]
	last := second[len(second)-1]
	if last.Role != "user" || last.Content != "also count the lines" {
		t.Fatalf("the next request ends with %+v, want the queued message", last)
	}
	tools := 0
	for _, m := range second {
		if m.Role == "tool" {
			tools++
		}
	}
	if tools != 5 || second[len(second)-2].Role != "tool" {
		t.Fatalf("%d tool results before the queued message", tools)
	}
	for _, m := range second {
		if m.Content == "never mind" {
			t.Fatal("a withdrawn message reached the model")
		}
	}
	if ok, _ := h.runner.Withdraw(context.Background(), sid, drop.ID); ok {
		t.Fatal("withdrawing after the run reported success")
	}
}

// A message queued while the model writes its final answer has no boundary left: it starts
// the next run, and the model sees it there.
func TestUndeliveredMessageStartsNextRun(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.Text("hello there").WithDelay(200*time.Millisecond), fakeai.Text("bye"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "say hello"})
	h.rec.waitFor(t, "run_started", ofType(core.EventRunStarted, id))
	if _, err := h.runner.Queue(context.Background(), sid, "now say bye"); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("first run %+v", res)
	}
	next := h.rec.waitFor(t, "the next run's end", func(ev bus.Event) bool {
		p, ok := ev.Payload.(core.RunFinishedPayload)
		return ok && ev.RunID != id && p.Status == core.StopCompleted
	})
	if next.Payload.(core.RunFinishedPayload).Output != "bye" {
		t.Fatalf("next run: %+v", next.Payload)
	}
	if got := kinds(h.rows(sid)); got != "user assistant user assistant" {
		t.Fatalf("rows %s", got)
	}
	reqs := h.requests()
	if last := reqs[1][len(reqs[1])-1]; last.Content != "now say bye" {
		t.Fatalf("second run's request ends with %+v", last)
	}
	if _, err := h.runner.Queue(context.Background(), sid, "late"); !errors.Is(err, loop.ErrNotRunning) {
		t.Fatalf("queue with no run: %v", err)
	}
}

// Plan mode: reads run, writes are refused in Go whatever the approval mode, the model is
// told it is planning, and the run row records the mode.
func TestPlanModeRefusesChangesInGo(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "alpha\n")
	h.srv.Enqueue(fakeai.ToolCalls(
		fakeai.Call{ID: "c_read", Name: "read_file", Arguments: `{"path":"a.txt"}`},
		fakeai.Call{ID: "c_write", Name: "write_file", Arguments: `{"path":"b.txt","content":"x"}`},
		fakeai.Call{ID: "c_sh", Name: "run_shell_command", Arguments: `{"command":"touch c.txt"}`},
	), fakeai.Text("Plan:\n1. write b.txt"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "plan it", Plan: true, Mode: tools.ModeAuto, SystemPrompt: "base"})
	if res.Status != core.StopCompleted {
		t.Fatalf("%+v", res)
	}
	for _, f := range []string{"b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, f)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s was created in plan mode: %v", f, err)
		}
	}
	results := map[string]store.ToolResultPayload{}
	for _, c := range h.rows(sid) {
		if c.Kind == store.KindToolResult {
			var p store.ToolResultPayload
			_ = json.Unmarshal(c.Payload, &p)
			results[p.CallID] = p
		}
	}
	if r := results["c_read"]; r.IsError || !strings.Contains(r.Content, "alpha") {
		t.Fatalf("read in plan mode: %+v", r)
	}
	for _, id := range []string{"c_write", "c_sh"} {
		if r := results[id]; !r.IsError || !strings.Contains(r.Content, "plan mode") {
			t.Fatalf("%s in plan mode: %+v", id, r)
		}
	}
	sys := h.requests()[0][0]
	if sys.Role != "system" || !strings.HasPrefix(sys.Content, "base") || !strings.Contains(sys.Content, "plan mode") {
		t.Fatalf("system message %q", sys.Content)
	}
	if run := runRow(t, h.db, sid, res.RunID); run.Mode != store.ModePlan {
		t.Fatalf("run mode %q", run.Mode)
	}
}

// AGENTS.md: personal then folder after the base prompt, read afresh for each run, recorded
// on the run row with their hashes.
func TestAgentsFilesInSystemPrompt(t *testing.T) {
	h := newHarness(t)
	personal := t.TempDir()
	if err := os.WriteFile(filepath.Join(personal, "AGENTS.md"), []byte("Personal: answer briefly."), 0o644); err != nil {
		t.Fatal(err)
	}
	h.write("AGENTS.md", "Folder: run make test.")
	reg, _ := tools.NewRegistry(tools.Builtins()...)
	r := loop.New(loop.Config{Store: h.db, Model: h.model, Approver: h.approver, Tools: reg,
		Workspaces: tools.NewManager(), InstructionsDir: personal})
	t.Cleanup(r.Close)
	sid := h.session()
	runOnce := func(prompt string) store.Run {
		t.Helper()
		h.srv.Enqueue(fakeai.Text("ok"))
		id, err := r.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: prompt, Model: "fake-model", SystemPrompt: "BASE", Mode: tools.ModeAuto})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Wait(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		return runRow(t, h.db, sid, id)
	}
	run1 := runOnce("one")
	sys := h.requests()[0][0].Content
	if !strings.HasPrefix(sys, "BASE") || strings.Index(sys, "Personal:") > strings.Index(sys, "Folder:") || strings.Index(sys, "Personal:") < 0 {
		t.Fatalf("system prompt %q", sys)
	}
	if len(run1.Instructions) != 2 || run1.Instructions[1].Path != filepath.Join(h.ws, "AGENTS.md") || len(run1.Instructions[0].SHA256) != 64 {
		t.Fatalf("run row instructions %+v", run1.Instructions)
	}
	h.write("AGENTS.md", "Folder: use tabs.")
	run2 := runOnce("two")
	if sys := h.requests()[1][0].Content; !strings.Contains(sys, "use tabs") || strings.Contains(sys, "make test") {
		t.Fatalf("changed AGENTS.md not picked up: %q", sys)
	}
	if run2.Instructions[1].SHA256 == run1.Instructions[1].SHA256 || run2.SystemPromptHash == run1.SystemPromptHash {
		t.Fatal("the run row does not show the new file")
	}
}

// A session that hits the context limit stops as context_exceeded after one compaction and
// retry; the next run sets the in-flight exchange aside and completes, every call answered.
func TestSessionContinuesAfterContextLimit(t *testing.T) {
	h := newHarness(t)
	h.write("big.txt", strings.Repeat("0123456789abcdef\n", 1500)) // ~25 KB: about 6,400 tokens
	h.srv.SetContextLimit(2000)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c_big", Name: "read_file", Arguments: `{"path":"big.txt"}`}))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "read big.txt"})
	if res.Status != core.StopContextExceeded {
		t.Fatalf("first run %+v", res)
	}
	h.srv.Enqueue(fakeai.Text("I will read it in parts instead."))
	res = h.run(loop.RunSpec{SessionID: sid, Prompt: "continue"})
	if res.Status != core.StopCompleted || res.Output != "I will read it in parts instead." {
		t.Fatalf("second run %+v", res)
	}
	rows := h.rows(sid)
	var aside *store.SummaryPayload
	for _, c := range rows {
		if c.Kind == store.KindSummary {
			var p store.SummaryPayload
			_ = json.Unmarshal(c.Payload, &p)
			if p.FromSeq > 0 {
				aside = &p
			}
		}
	}
	if aside == nil || aside.FromSeq != 1 || !strings.Contains(aside.Text, "set aside") {
		t.Fatalf("no visible set-aside row: %s", kinds(rows))
	}
	h.checkPairing()
	// Every call in the session has its one result, and the big result is still stored.
	if _, err := h.db.Append(context.Background(), sid, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "x"}}); err != nil {
		t.Fatalf("session left with unanswered calls: %v", err)
	}
	if hits, err := h.db.Search(context.Background(), "0123456789abcdef", 5); err != nil || len(hits) == 0 {
		t.Fatalf("the set-aside rows are not searchable: %v %v", hits, err)
	}
}

// "Compact up to here": a summary row through the chosen row's step; undoing it (a row that
// cancels it) gives the next request the full rows again.
func TestCompactUpToHereAndUndo(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "alpha\n")
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}), fakeai.Text("alpha it is"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "read a.txt"})
	full, _ := store.Messages(h.rows(sid))
	h.srv.Enqueue(fakeai.Text("We read a.txt: alpha."))
	id, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Model: "fake-model", Mode: tools.ModeAuto, CompactThrough: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted || res.Turns != 0 || res.InputTokens == 0 {
		t.Fatalf("compaction run %+v", res)
	}
	rows := h.rows(sid)
	last := rows[len(rows)-1]
	var p store.SummaryPayload
	_ = json.Unmarshal(last.Payload, &p)
	if last.Kind != store.KindSummary || p.Text != "We read a.txt: alpha." || p.ThroughSeq != 4 {
		t.Fatalf("summary row %s %+v (the cut must keep the call with its result)", last.Kind, p)
	}
	if ms, _ := store.Messages(rows); len(ms) != 2 {
		t.Fatalf("compacted messages: %s", ms)
	}
	if _, err := h.db.Append(context.Background(), sid, "", store.NewChunk{Kind: store.KindSummary,
		Payload: store.SummaryPayload{Text: "Compaction undone", ThroughSeq: p.ThroughSeq, Undoes: last.Seq}}); err != nil {
		t.Fatal(err)
	}
	if ms, _ := store.Messages(h.rows(sid)); len(ms) != len(full) {
		t.Fatalf("after undo %d messages, want %d", len(ms), len(full))
	}
}
