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

// hookHarness is a harness whose runner fires the personal hooks written with setHooks.
type hookHarness struct {
	*harness
	config string
}

var _ extend.Engine = (*hooks.Engine)(nil)

func newHookHarness(t *testing.T) *hookHarness {
	t.Helper()
	config := t.TempDir()
	h := newHarnessWith(t, func(c *loop.Config) {
		withHooks(c, &hooks.Engine{PersonalDir: config, Rows: c.Store.(*store.DB)})
	})
	return &hookHarness{harness: h, config: config}
}

// withHooks gives a runner the hooks engine as stack.New does: fired by the runner for the
// hooks the core asks for, by extend.PromptHooks for a prompt, and by extend.Hooks around
// tool calls.
func withHooks(c *loop.Config, e *hooks.Engine) {
	c.Hooks, c.Admission = extend.FireHooks(e, nil), extend.PromptHooks(e, c.Store, nil)
	c.Extensions = append([]loop.Extension{extend.Hooks(e, nil)}, c.Extensions...)
}

// setHooks writes the personal hooks.json: event -> matcher -> commands.
func (h *hookHarness) setHooks(event, matcher string, commands ...string) {
	h.t.Helper()
	hs := make([]any, len(commands))
	for i, c := range commands {
		hs[i] = map[string]any{"type": "command", "command": c, "timeout": 10}
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": hs}}}})
	if err := os.WriteFile(filepath.Join(h.config, "hooks.json"), b, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// script writes an executable hook script outside the workspace.
func (h *hookHarness) script(name, body string) string {
	h.t.Helper()
	p := filepath.Join(h.config, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func hookRows(t *testing.T, rows []store.Chunk) []store.HookPayload {
	t.Helper()
	var out []store.HookPayload
	for _, r := range rows {
		if r.Kind == store.KindHook {
			var p store.HookPayload
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

func toolResult(t *testing.T, rows []store.Chunk, callID string) store.ToolResultPayload {
	t.Helper()
	for _, r := range rows {
		var p store.ToolResultPayload
		if r.Kind == store.KindToolResult && json.Unmarshal(r.Payload, &p) == nil && p.CallID == callID {
			return p
		}
	}
	t.Fatalf("no result for %s", callID)
	return store.ToolResultPayload{}
}

// A PreToolUse hook exiting 2 denies the call even in auto mode: the model reads the
// hook's reason as the result, nothing runs, and the hook's run is a row.
func TestPreToolUseHookDeniesInAutoMode(t *testing.T) {
	h := newHookHarness(t)
	guard := h.script("guard.sh", "#!/bin/bash\nif grep -q 'secret'; then echo 'writing secrets is not allowed' >&2; exit 2; fi\n")
	h.setHooks("PreToolUse", "Write", guard)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"s.txt","content":"secret"}`}),
		fakeai.Text("ok, I will not"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "save the secret", Mode: tools.ModeAuto})
	if res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "s.txt")); err == nil {
		t.Fatal("the denied write ran")
	}
	rows := h.rows(sid)
	if r := toolResult(t, rows, "c1"); !r.IsError || r.Content != "denied by hook: writing secrets is not allowed" {
		t.Fatalf("result %+v", r)
	}
	hr := hookRows(t, rows)
	if len(hr) != 1 || hr[0].Event != "PreToolUse" || hr[0].ExitCode != 2 || hr[0].Decision != "deny" || hr[0].CallID != "c1" {
		t.Fatalf("hook rows %+v", hr)
	}
	h.checkPairing()
}

// A hook's ask asks the person even in auto mode.
func TestPreToolUseHookAskAsksInAutoMode(t *testing.T) {
	h := newHookHarness(t)
	ask := h.script("ask.py", "#!/usr/bin/env python3\nimport json\nprint(json.dumps({'hookSpecificOutput': "+
		"{'permissionDecision': 'ask', 'permissionDecisionReason': 'pushing needs a look'}}))\n")
	h.setHooks("PreToolUse", "Bash", ask)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo pushed"}`}),
		fakeai.Text("done"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "push", Mode: tools.ModeAuto})
	p := <-h.pending
	if p.By != tools.ByHook || p.Call.ID != "c1" {
		t.Fatalf("pending %+v, want asked by the hook", p)
	}
	if err := h.approver.Decide(sid, "c1", tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	if r := toolResult(t, h.rows(sid), "c1"); r.IsError || !strings.Contains(r.Content, "pushed") {
		t.Fatalf("result %+v", r)
	}
}

// updatedInput replaces the call's arguments and is validated like the model's: a valid
// one runs as rewritten, an invalid one is refused by the tool's schema and nothing runs.
func TestUpdatedInputIsRevalidated(t *testing.T) {
	h := newHookHarness(t)
	rewrite := h.script("rewrite.py", "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nti = d['tool_input']\n"+
		"if ti['content'] == 'bad':\n    ti = {'file_path': ti['file_path']}\nelse:\n    ti['file_path'] = 'out/' + ti['file_path']\n    ti.pop('path')\n"+
		"print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow', 'updatedInput': ti}}))\n")
	h.setHooks("PreToolUse", "Write", rewrite)
	h.srv.Enqueue(fakeai.ToolCalls(
		fakeai.Call{ID: "good", Name: "write_file", Arguments: `{"path":"a.txt","content":"hello"}`},
		fakeai.Call{ID: "bad", Name: "write_file", Arguments: `{"path":"b.txt","content":"bad"}`}),
		fakeai.Text("done"))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "write", Mode: tools.ModeAsk}); res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "out", "a.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("the rewritten write: %q %v", b, err)
	}
	rows := h.rows(sid)
	if r := toolResult(t, rows, "bad"); !r.IsError || !strings.Contains(r.Content, "content") {
		t.Fatalf("an invalid updatedInput: %+v", r)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, name)); err == nil {
			t.Fatalf("%s was written where the model asked", name)
		}
	}
}

// UserPromptSubmit: the hook's output reaches the first request as Loopdesk's note; a
// blocked prompt is never stored or sent, and the person is told why.
func TestUserPromptSubmitHook(t *testing.T) {
	h := newHookHarness(t)
	hook := h.script("prompt.sh", "#!/bin/bash\nif grep -q 'password'; then echo 'do not paste passwords' >&2; exit 2; fi\necho 'current branch: feature/x'\n")
	h.setHooks("UserPromptSubmit", "", hook)
	h.srv.Enqueue(fakeai.Text("noted"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "what branch?"})
	reqs := h.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[0]
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !strings.HasPrefix(last.Content, store.NotePrefix) || !strings.Contains(last.Content, "current branch: feature/x") {
		t.Fatalf("last message %+v", last)
	}
	if msgs[len(msgs)-2].Content != "what branch?" {
		t.Fatalf("the prompt is not before the note: %+v", msgs)
	}

	before := len(h.rows(sid))
	_, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "my password is hunter2", Model: "fake-model"})
	if !errors.Is(err, extend.ErrHookBlocked) || !strings.Contains(err.Error(), "do not paste passwords") {
		t.Fatalf("start: %v", err)
	}
	rows := h.rows(sid)
	for _, r := range rows[before:] {
		if r.Kind != store.KindHook {
			t.Fatalf("a blocked prompt stored a %s row", r.Kind)
		}
		if strings.Contains(string(r.Payload), "hunter2") {
			t.Fatal("the blocked prompt's text was stored")
		}
	}
	if len(h.srv.Requests()) != 1 {
		t.Fatal("a blocked prompt reached the model")
	}
}

// A Stop hook exiting 2 sends the run back to the model with its reason, at most three
// times in a row; the run's result covers every round.
func TestStopHookContinuesAtMostThreeTimes(t *testing.T) {
	h := newHookHarness(t)
	stop := h.script("stop.sh", "#!/bin/bash\necho 'the tests still fail' >&2\nexit 2\n")
	h.setHooks("Stop", "", stop)
	h.srv.Enqueue(fakeai.Text("done 1").WithUsage(10, 1, 0), fakeai.Text("done 2").WithUsage(10, 1, 0),
		fakeai.Text("done 3").WithUsage(10, 1, 0), fakeai.Text("done 4").WithUsage(10, 1, 0))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "fix the tests"})
	if res.Status != core.StopCompleted || res.Output != "done 4" || res.Turns != 4 || res.InputTokens != 40 {
		t.Fatalf("result %+v", res)
	}
	rows := h.rows(sid)
	notes := 0
	for _, r := range rows {
		if r.Kind == store.KindNote {
			notes++
			if !strings.Contains(string(r.Payload), "the tests still fail") {
				t.Fatalf("note %s", r.Payload)
			}
		}
	}
	if hr := hookRows(t, rows); notes != 3 || len(hr) != 4 {
		t.Fatalf("%d notes, %d hook rows; want 3 continuations and 4 Stop runs (%s)", notes, len(hr), kinds(rows))
	}
	reqs := h.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if last := reqs[1][len(reqs[1])-1]; !strings.HasPrefix(last.Content, store.NotePrefix) || !strings.Contains(last.Content, "the tests still fail") {
		t.Fatalf("the continuation request ends with %+v", last)
	}
}

// PostToolUse exit 2: the reason reaches the model with the call's result.
func TestPostToolUseReasonReachesTheModel(t *testing.T) {
	h := newHookHarness(t)
	lint := h.script("lint.sh", "#!/bin/bash\necho 'lint: missing newline at end of file' >&2\nexit 2\n")
	h.setHooks("PostToolUse", "Write|Edit", lint)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"x"}`}),
		fakeai.Text("fixed"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "write", Mode: tools.ModeAuto})
	r := toolResult(t, h.rows(sid), "c1")
	if !strings.Contains(r.Content, store.NotePrefix) || !strings.Contains(r.Content, "lint: missing newline at end of file") {
		t.Fatalf("result %q", r.Content)
	}
}

// rulesOf is a fixed rule source.
type rulesOf []tools.Rule

func (r rulesOf) ListRules(context.Context, string, string) ([]tools.Rule, error) { return r, nil }

// A hook's allow never overrides a deny rule: the rule denies, the hook's run is recorded,
// and nothing runs.
func TestHookAllowNeverOverridesADenyRule(t *testing.T) {
	config := t.TempDir()
	base := newHarnessWith(t, func(c *loop.Config) {
		withHooks(c, &hooks.Engine{PersonalDir: config})
		c.Approver = tools.NewApprover(rulesOf{{ID: "no-rm", Tool: "run_shell_command", Pattern: "rm *", Effect: tools.EffectDeny,
			Scope: tools.ScopeWorkspace}})
	})
	h := &hookHarness{harness: base, config: config}
	allow := h.script("allow.sh", "#!/bin/bash\necho '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\"}}'\n")
	h.setHooks("PreToolUse", "Bash", allow)
	h.write("keep.txt", "keep\n")
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"rm keep.txt"}`}), fakeai.Text("ok"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "clean", Mode: tools.ModeAuto})
	if _, err := os.Stat(filepath.Join(h.ws, "keep.txt")); err != nil {
		t.Fatal("the hook's allow ran a call a deny rule refuses")
	}
	rows := h.rows(sid)
	if r := toolResult(t, rows, "c1"); !r.IsError || !strings.Contains(r.Content, "denied by rule:no-rm") {
		t.Fatalf("result %+v", r)
	}
	if hr := hookRows(t, rows); len(hr) != 1 || hr[0].Decision != "allow" {
		t.Fatalf("hook rows %+v", hr)
	}
}

// A message queued while a run works passes the UserPromptSubmit hooks too: a blocked one is
// refused (and recorded), another passes.
func TestQueuedMessagesPassUserPromptSubmit(t *testing.T) {
	h := newHookHarness(t)
	hook := h.script("prompt.sh", "#!/bin/bash\nif grep -q 'password'; then echo 'do not paste passwords' >&2; exit 2; fi\n")
	h.setHooks("UserPromptSubmit", "", hook)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}), fakeai.Text("done"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "say hi", Mode: tools.ModeAsk})
	<-h.pending // the run is going, waiting for the person
	_, err := h.runner.Queue(context.Background(), sid, "my password is hunter2")
	if !errors.Is(err, extend.ErrHookBlocked) || !strings.Contains(err.Error(), "do not paste passwords") {
		t.Fatalf("check: %v", err)
	}
	if _, err := h.runner.Queue(context.Background(), sid, "also say bye"); err != nil {
		t.Fatal(err)
	}
	if err := h.approver.Decide(sid, "c1", tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
	var blocked int
	for _, r := range hookRows(t, h.rows(sid)) {
		if r.Event == "UserPromptSubmit" && r.Decision == "block" {
			blocked++
		}
	}
	if blocked != 1 {
		t.Fatalf("%d blocked UserPromptSubmit rows, want 1", blocked)
	}
}

// SessionStart fires once per session and process, with source "new" for a session without
// rows; its output reaches the first request as Loopdesk's note. PostToolUse hooks read the
// tool's response.
func TestSessionStartAndToolResponse(t *testing.T) {
	h := newHookHarness(t)
	seen := filepath.Join(h.config, "post.json")
	start := h.script("start.sh", "#!/bin/bash\npython3 -c 'import json,sys; print(\"session source: \" + json.load(sys.stdin)[\"source\"])'\n")
	post := h.script("post.sh", "#!/bin/bash\ncat > "+seen+"\n")
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": start}}}},
		"PostToolUse":  []any{map[string]any{"matcher": "LS", "hooks": []any{map[string]any{"type": "command", "command": post}}}},
	}})
	if err := os.WriteFile(filepath.Join(h.config, "hooks.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	h.write("a.txt", "x")
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{}`}), fakeai.Text("one file"), fakeai.Text("again"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "what is here?", Mode: tools.ModeAuto})
	h.run(loop.RunSpec{SessionID: sid, Prompt: "and now?", Mode: tools.ModeAuto})
	reqs := h.requests()
	first := reqs[0][len(reqs[0])-1]
	if !strings.HasPrefix(first.Content, store.NotePrefix) || !strings.Contains(first.Content, "session source: new") {
		t.Fatalf("first request ends with %+v", first)
	}
	starts := 0
	for _, r := range hookRows(t, h.rows(sid)) {
		if r.Event == "SessionStart" {
			starts++
		}
	}
	if starts != 1 {
		t.Fatalf("SessionStart ran %d times, want once", starts)
	}
	var in struct {
		ToolName     string `json:"tool_name"`
		ToolResponse struct {
			Content string `json:"content"`
		} `json:"tool_response"`
	}
	raw, err := os.ReadFile(seen)
	if err != nil || json.Unmarshal(raw, &in) != nil || in.ToolName != "LS" || !strings.Contains(in.ToolResponse.Content, "a.txt") {
		t.Fatalf("PostToolUse stdin %s (%v)", raw, err)
	}
}

// Hook rows never reach the model, run after run: a session whose every prompt passes a
// UserPromptSubmit hook keeps working (the request cache skips hook rows like approvals).
func TestHookRowsAcrossRuns(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("UserPromptSubmit", "", "echo context")
	h.srv.Enqueue(fakeai.Text("one"), fakeai.Text("two"), fakeai.Text("three"))
	sid := h.session()
	for _, p := range []string{"first", "second", "third"} {
		if res := h.run(loop.RunSpec{SessionID: sid, Prompt: p}); res.Status != core.StopCompleted {
			t.Fatalf("%s: %+v", p, res)
		}
	}
	reqs := h.requests()
	last := reqs[len(reqs)-1]
	if len(reqs) != 3 || last[len(last)-2].Content != "third" || !strings.Contains(last[len(last)-1].Content, "context") {
		t.Fatalf("requests %d, last %+v", len(reqs), last)
	}
}

// A PreToolUse hook that crashes denies the call even in auto mode, and the model reads why.
func TestCrashingPreToolUseHookDeniesTheCall(t *testing.T) {
	h := newHookHarness(t)
	crash := h.script("crash.py", "#!/usr/bin/env python3\nraise SystemExit('policy server unreachable')\n")
	h.setHooks("PreToolUse", "*", crash)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"x"}`}), fakeai.Text("ok"))
	sid := h.session()
	h.run(loop.RunSpec{SessionID: sid, Prompt: "write", Mode: tools.ModeAuto})
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
		t.Fatal("the call ran although its PreToolUse hook crashed")
	}
	r := toolResult(t, h.rows(sid), "c1")
	if !r.IsError || !strings.HasPrefix(r.Content, "denied by hook: hook failed: "+crash+": exit code 1: policy server unreachable") {
		t.Fatalf("result %q", r.Content)
	}
}

// A child session's run ends with SubagentStop, not Stop, and children run the same hooks:
// the child's PreToolUse hook denies its shell command, and both runs are recorded on the
// child's rows.
func TestChildSessionsRunTheSameHooksAndSubagentStop(t *testing.T) {
	config := t.TempDir()
	h := newHarnessWith(t, func(c *loop.Config) {
		withHooks(c, &hooks.Engine{PersonalDir: config, Rows: c.Store.(*store.DB)})
		c.Children = task.NewDriver(task.Config{}, c.Store.(task.Store))
	})
	hh := &hookHarness{harness: h, config: config}
	seen := filepath.Join(config, "subagent-stop.json")
	record := hh.script("record.sh", "#!/bin/bash\ncat > "+seen+"\n")
	deny := hh.script("deny.sh", "#!/bin/bash\necho 'no shell in children' >&2\nexit 2\n")
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"SubagentStop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": record}}}},
		"PreToolUse":   []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": deny}}}},
	}})
	if err := os.WriteFile(filepath.Join(config, "hooks.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(taskCall("t1", "look around", "[child] run ls")), fakeai.Text("The child is done."))
	h.srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "s1", Name: "run_shell_command", Arguments: `{"command":"ls"}`}),
		fakeai.Text("I was not allowed to run ls."))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] ask a child", Mode: tools.ModeAuto}); res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	child := childOf(t, h, sid, "t1")
	if got := resultOf(t, h.rows(child.ID), "s1"); !got.IsError || !strings.Contains(got.Content, "no shell in children") {
		t.Fatalf("the child's shell call ran past the PreToolUse hook: %+v", got)
	}
	var in struct {
		Event     string `json:"hook_event_name"`
		SessionID string `json:"session_id"`
	}
	raw, err := os.ReadFile(seen)
	if err != nil || json.Unmarshal(raw, &in) != nil || in.Event != "SubagentStop" || in.SessionID != child.ID {
		t.Fatalf("SubagentStop input %s (%v), want the child's session", raw, err)
	}
}
