package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/extend"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Hooks answering "continue": false (Claude Code: Claude stops after the hook, stopReason is
// shown to the person, and it takes precedence over other decisions), from every event.

const stopBash = "#!/bin/bash\ncat > /dev/null\necho '{\"continue\": false, \"stopReason\": \"the build is red\"}'\n"

const stopPython = "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\n" +
	"print(json.dumps({'continue': False, 'stopReason': 'the build is red', 'decision': 'block', 'reason': 'go on'}))\n"

// assertHookStopped checks what the person and the journal see of a run a hook stopped: the
// status, the hook's stopReason in the run's error (also on the stored run row), and every
// call of the session answered.
func assertHookStopped(t *testing.T, h *hookHarness, sid string, res core.Result, event string) {
	t.Helper()
	if res.Status != core.StopHook || !strings.Contains(res.Error, "the build is red") || !strings.Contains(res.Error, event) {
		t.Fatalf("result %+v, want hook_stopped naming %s and the stopReason", res, event)
	}
	runs, err := h.db.ListRuns(context.Background(), sid)
	var run store.Run
	for _, r := range runs {
		if r.ID == res.RunID {
			run = r
		}
	}
	if err != nil || run.Status != store.RunStatus(core.StopHook) || !strings.Contains(run.Error, "the build is red") {
		t.Fatalf("stored run %+v (%v)", run, err)
	}
	assertEveryCallAnswered(t, h.rows(sid))
}

// assertEveryCallAnswered: no call row of the session is left without its one result.
func assertEveryCallAnswered(t *testing.T, rows []store.Chunk) {
	t.Helper()
	results := map[string]int{}
	for _, r := range rows {
		var p store.ToolResultPayload
		if r.Kind == store.KindToolResult && json.Unmarshal(r.Payload, &p) == nil {
			results[p.CallID]++
		}
	}
	for _, r := range rows {
		var p store.AssistantPayload
		if r.Kind != store.KindAssistant || json.Unmarshal(r.Payload, &p) != nil {
			continue
		}
		for _, c := range p.ToolCalls {
			if results[c.ID] != 1 {
				t.Errorf("call %s has %d results", c.ID, results[c.ID])
			}
		}
	}
}

// continueAfter proves the session is still valid to continue: the next run's request pairs
// every call with its result and the run completes.
func continueAfter(t *testing.T, h *hookHarness, sid string) {
	t.Helper()
	if err := os.Remove(filepath.Join(h.config, "hooks.json")); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(fakeai.Text("picking up again"))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "go on", Mode: tools.ModeAuto}); res.Status != core.StopCompleted {
		t.Fatalf("continued run %+v", res)
	}
	h.checkPairing()
}

// PostToolUse: the call ran and keeps its real result; the model is not called again.
func TestPostToolUseContinueFalseEndsTheRun(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("PostToolUse", "Write", h.script("stop.sh", stopBash))
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"x"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "write_file", Arguments: `{"path":"b.txt","content":"y"}`}))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "write a and b", Mode: tools.ModeAuto})
	assertHookStopped(t, h, sid, res, "PostToolUse")
	if r := toolResult(t, h.rows(sid), "c1"); r.IsError || strings.Contains(r.Content, "cancelled") {
		t.Fatalf("the call that ran lost its result: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err != nil {
		t.Fatal("the write before the hook did not happen")
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1: the run went on after the hook stopped it", n)
	}
	if hr := hookRows(t, h.rows(sid)); len(hr) != 1 || hr[0].Decision != hooks.DecisionStop || hr[0].Reason != "the build is red" {
		t.Fatalf("the hook's row does not say it stopped the run: %+v", hr)
	}
	continueAfter(t, h, sid)
}

// PreToolUse (python): the call is denied with the stopReason and the run ends, even though
// the same hook said "block" (continue: false takes precedence).
func TestPreToolUseContinueFalseEndsTheRun(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("PreToolUse", "Bash", h.script("stop.py", stopPython))
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"touch ran.txt"}`}),
		fakeai.Text("should not be asked"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "touch it", Mode: tools.ModeAuto})
	assertHookStopped(t, h, sid, res, "PreToolUse")
	if _, err := os.Stat(filepath.Join(h.ws, "ran.txt")); err == nil {
		t.Fatal("the stopped call ran")
	}
	if r := toolResult(t, h.rows(sid), "c1"); !r.IsError {
		t.Fatalf("result %+v", r)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
	continueAfter(t, h, sid)
}

// Notification: the run waits for the person; a Notification hook's stop ends it at once,
// the waiting call answered as stopped and never run.
func TestNotificationContinueFalseEndsTheRun(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("Notification", "", h.script("stop.sh", stopBash))
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"touch ran.txt"}`}))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "touch it", Mode: tools.ModeAsk})
	assertHookStopped(t, h, sid, res, "Notification")
	if _, err := os.Stat(filepath.Join(h.ws, "ran.txt")); err == nil {
		t.Fatal("the call ran without approval")
	}
	if r := toolResult(t, h.rows(sid), "c1"); !r.IsError || !strings.Contains(r.Content, "hook_stopped") {
		t.Fatalf("result %+v", r)
	}
	continueAfter(t, h, sid)
}

// PreCompact: the compaction the person asked for is not made (no summary call, no row).
func TestPreCompactContinueFalseEndsTheRun(t *testing.T) {
	h := newHookHarness(t)
	h.srv.Enqueue(fakeai.Text("hello"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "hi"})
	h.setHooks("PreCompact", "", h.script("stop.sh", stopBash))
	id, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Model: "fake-model", Mode: tools.ModeAuto, CompactThrough: 2})
	if err != nil {
		t.Fatal(err)
	}
	res := h.wait(id)
	assertHookStopped(t, h, sid, res, "PreCompact")
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1 (no summary call)", n)
	}
	for _, r := range h.rows(sid) {
		if r.Kind == store.KindSummary {
			t.Fatal("a summary row was stored")
		}
	}
}

// Stop: "continue": false wins over "decision": "block" — no continuation; the answer stays.
func TestStopHookContinueFalseWinsOverBlock(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("Stop", "", h.script("stop.py", stopPython))
	h.srv.Enqueue(fakeai.Text("all done"), fakeai.Text("continued"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "do it", Mode: tools.ModeAuto})
	assertHookStopped(t, h, sid, res, "Stop")
	if res.Output != "all done" || len(h.srv.Requests()) != 1 {
		t.Fatalf("output %q after %d requests", res.Output, len(h.srv.Requests()))
	}
}

// SessionStart: nothing is sent; the person reads the stopReason; the hook's row says why.
func TestSessionStartContinueFalseSendsNothing(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("SessionStart", "", h.script("stop.sh", stopBash))
	sid := h.session()
	_, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "hello", Model: "fake-model", Mode: tools.ModeAuto})
	if !errors.Is(err, extend.ErrHookBlocked) || !strings.Contains(err.Error(), "the build is red") {
		t.Fatalf("start: %v", err)
	}
	if len(h.srv.Requests()) != 0 {
		t.Fatal("a request was sent")
	}
	rows := h.rows(sid)
	if hr := hookRows(t, rows); len(hr) != 1 || hr[0].Event != string(hooks.SessionStart) {
		t.Fatalf("hook rows %+v", hr)
	}
	for _, r := range rows {
		if r.Kind == store.KindUser {
			t.Fatal("the prompt was stored")
		}
	}
}

// SubagentStop: the child's run ends hook_stopped and the parent's task call says why.
func TestSubagentStopContinueFalseEndsTheChild(t *testing.T) {
	config := t.TempDir()
	h := newHarnessWith(t, func(c *loop.Config) {
		withHooks(c, &hooks.Engine{PersonalDir: config, Rows: c.Store.(*store.DB)})
		c.Children = task.NewDriver(task.Config{}, c.Store.(task.Store))
	})
	hh := &hookHarness{harness: h, config: config}
	hh.setHooks("SubagentStop", "", hh.script("stop.sh", stopBash))
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "look around", "[child] say hi")), fakeai.Text("The child stopped."))
	h.srv.EnqueueFor("[child]", fakeai.Text("hi"))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] ask a child", Mode: tools.ModeAuto}); res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	child := childOf(t, h, sid, "t1")
	runs, err := h.db.ListRuns(context.Background(), child.ID)
	if err != nil || len(runs) != 1 || runs[0].Status != store.RunStatus(core.StopHook) || !strings.Contains(runs[0].Error, "SubagentStop") {
		t.Fatalf("child runs %+v (%v)", runs, err)
	}
	if got := resultOf(t, h.rows(sid), "t1"); !strings.Contains(got.Content, "the build is red") {
		t.Fatalf("the parent's task result does not say why the child stopped: %+v", got)
	}
}
