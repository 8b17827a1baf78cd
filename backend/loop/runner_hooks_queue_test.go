package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/extend"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A message queued while the run works goes through UserPromptSubmit like a typed one: a
// blocked one is refused with the hook's reason and never reaches the model; the context a
// hook adds (plain stdout here, additionalContext in JSON) reaches the model right after the
// delivered message, framed as Loopdesk's note, and is stored once.
func TestQueuedMessageCarriesUserPromptSubmitContext(t *testing.T) {
	h := newHookHarness(t)
	hook := h.script("prompt.py", `#!/usr/bin/env python3
import json, sys
p = json.load(sys.stdin)["prompt"]
if "password" in p:
    print("do not paste passwords", file=sys.stderr)
    sys.exit(2)
if "json" in p:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket LD-7 is open"}}))
else:
    print("current branch: feature/x")
`)
	h.setHooks("UserPromptSubmit", "", hook)
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}), fakeai.Text("done"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "say hi", Mode: tools.ModeAsk})
	<-h.pending // the run is going, waiting for the person
	if _, err := h.runner.Queue(context.Background(), sid, "my password is hunter2"); !errors.Is(err, extend.ErrHookBlocked) ||
		!strings.Contains(err.Error(), "do not paste passwords") {
		t.Fatalf("queue: %v", err)
	}
	for _, text := range []string{"which branch?", "as json please"} {
		if _, err := h.runner.Queue(context.Background(), sid, text); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.approver.Decide(sid, "c1", tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	reqs := h.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1]
	var got []string
	for _, m := range msgs[len(msgs)-4:] {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: which branch?", "current branch: feature/x", "user: as json please", "ticket LD-7 is open"}
	for i, w := range want {
		if !strings.HasSuffix(strings.TrimSpace(got[i]), w) && !strings.Contains(got[i], w) {
			t.Fatalf("message %d = %q, want %q\nall: %q", i, got[i], w, got)
		}
		if i%2 == 1 && !strings.HasPrefix(got[i], "user: "+store.NotePrefix) {
			t.Fatalf("the hook's context is not framed as Loopdesk's note: %q", got[i])
		}
	}
	for _, m := range msgs {
		if strings.Contains(m.Content, "hunter2") {
			t.Fatal("the blocked message reached the model")
		}
	}
	notes := 0
	for _, r := range h.rows(sid) {
		if r.Kind == store.KindNote {
			notes++
		}
	}
	if notes != 3 {
		t.Fatalf("%d note rows, want 3 (the prompt's and one per queued message)", notes)
	}
	h.checkPairing()
}

// A UserPromptSubmit hook answering "continue": false for a queued message refuses it and
// ends the running run, the waiting call answered.
func TestQueuedMessageContinueFalseEndsTheRun(t *testing.T) {
	h := newHookHarness(t)
	h.setHooks("UserPromptSubmit", "", h.script("stop.sh",
		"#!/bin/bash\nif grep -q deploy; then echo '{\"continue\": false, \"stopReason\": \"the build is red\"}'; fi\n"))
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}), fakeai.Text("done"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "say hi", Mode: tools.ModeAsk})
	<-h.pending
	if _, err := h.runner.Queue(context.Background(), sid, "now deploy"); !errors.Is(err, extend.ErrHookBlocked) ||
		!strings.Contains(err.Error(), "the build is red") {
		t.Fatalf("queue: %v", err)
	}
	res := h.wait(id)
	assertHookStopped(t, h, sid, res, "UserPromptSubmit")
	if q, _ := h.db.Queued(context.Background(), sid); len(q) != 0 {
		t.Fatalf("queued %+v", q)
	}
	continueAfter(t, h, sid)
}

// What a queued message's UserPromptSubmit hooks added is stored with the message and
// survives a restart of the app (a new runner over the same database): "Send now" delivers it
// framed right after the message, a leftover delivered with that run's prompt keeps its own,
// a removed message's context goes with it, and the hooks never run twice for a message.
func TestQueuedHookContextSurvivesARestart(t *testing.T) {
	h := newHookHarness(t)
	log := filepath.Join(h.config, "runs.log")
	h.setHooks("UserPromptSubmit", "", h.script("prompt.sh", `#!/bin/bash
input=$(cat)
prompt=$(printf '%s' "$input" | sed -n 's/.*"prompt":"\([^"]*\)".*/\1/p')
echo "$prompt" >> `+log+`
case "$prompt" in
  *json*) echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket LD-9 is open"}}' ;;
  *) echo "hook saw: $prompt" ;;
esac
`))
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}))
	ctx := context.Background()
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "start", Mode: tools.ModeAsk})
	<-h.pending // the run is going, waiting for the person
	ids := map[string]string{}
	for _, text := range []string{"alpha", "beta", "gamma as json"} {
		m, err := h.runner.Queue(ctx, sid, text)
		if err != nil {
			t.Fatal(err)
		}
		ids[text] = m.ID
	}
	stored, err := h.db.Queued(ctx, sid)
	if err != nil || len(stored) != 3 || len(stored[0].HookContext) != 1 || stored[0].HookContext[0] != "hook saw: alpha" ||
		len(stored[2].HookContext) != 1 || stored[2].HookContext[0] != "ticket LD-9 is open" {
		t.Fatalf("stored queue %+v (%v): want each message with its hook context", stored, err)
	}
	if !h.runner.Cancel(sid) {
		t.Fatal("nothing to stop")
	}
	if res := h.wait(id); res.Status != core.StopCancelled {
		t.Fatalf("result %+v", res)
	}
	hookRuns := func() []string {
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
	}
	if got := hookRuns(); len(got) != 4 {
		t.Fatalf("hook runs before the restart %q, want 4 (the prompt and 3 queued)", got)
	}

	h.restart()
	if ok, err := h.db.Dequeue(ctx, sid, ids["beta"]); !ok || err != nil {
		t.Fatalf("remove beta: %v %v", ok, err)
	}
	h.srv.Enqueue(fakeai.Text("ok"))
	run := h.start(loop.RunSpec{SessionID: sid, Prompt: "alpha", PromptQueuedID: ids["alpha"]}) // "Send now"
	if res := h.wait(run); res.Status != core.StopCompleted {
		t.Fatalf("send now: %+v", res)
	}
	if got := hookRuns(); len(got) != 4 {
		t.Fatalf("hook runs after Send now %q: the hooks ran again for a queued message", got)
	}
	reqs := h.requests()
	msgs := reqs[len(reqs)-1]
	var got []string
	for _, m := range msgs[len(msgs)-4:] {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: alpha", "user: " + store.NotePrefix, "user: gamma as json", "user: " + store.NotePrefix}
	said := []string{"", "hook saw: alpha", "", "ticket LD-9 is open"}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) || !strings.Contains(got[i], said[i]) {
			t.Fatalf("message %d = %q, want %q … %q\nlast four: %q", i, got[i], want[i], said[i], got)
		}
	}
	for _, m := range msgs {
		if strings.Contains(m.Content, "beta") {
			t.Fatalf("the removed message or its context reached the model: %q", m.Content)
		}
	}
	if q, _ := h.db.Queued(ctx, sid); len(q) != 0 {
		t.Fatalf("still queued: %+v", q)
	}
	notes := 0
	for _, r := range h.rows(sid) {
		if r.Kind == store.KindNote {
			notes++
		}
	}
	if notes != 3 {
		t.Fatalf("%d note rows, want 3 (the first prompt's, alpha's and gamma's, each once)", notes)
	}
	h.checkPairing()
}
