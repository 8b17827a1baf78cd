package loop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A turn Anthropic cut at the model's context window carries a tool_use that never finished
// being thought through: it must not run, and the run goes the context_exceeded way (compact
// and ask again; in a session with nothing to compact, stop as context_exceeded).
func TestAnthropicContextWindowCutRunsNoCall(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(anthropicAs(h, "anthropic", 0))
	h.srv.Enqueue(fakeai.TextThenTools("I will write it.", call("toolu_w", "write_file", `{"path":"cut.txt","content":"x"}`)).
		WithFinish("model_context_window_exceeded"))
	sid := h.session()
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "write cut.txt", Model: claude, Mode: tools.ModeAuto})
	if res.Status != core.StopContextExceeded || res.ToolCalls != 0 {
		t.Fatalf("run ended %s with %d tool calls (%s), want context_exceeded and none", res.Status, res.ToolCalls, res.Error)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "cut.txt")); !os.IsNotExist(err) {
		t.Errorf("the cut turn's write_file ran: %v", err)
	}
	for _, r := range h.rows(sid) {
		if r.Kind == "tool_result" || (r.Kind == "assistant" && strings.Contains(string(r.Payload), "toolu_w")) {
			t.Errorf("the cut turn left a call behind: %s %s", r.Kind, r.Payload)
		}
	}
}

// After a compaction makes room, the cut turn is asked for again, once, and the complete
// answer's calls run.
func TestAnthropicContextWindowCutCompactsAndRetries(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(anthropicAs(h, "anthropic", 0))
	sid := h.session()
	for _, p := range []string{"first", "second", "third"} {
		h.srv.Enqueue(fakeai.Text("noted " + p))
		runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: p, Model: claude})
	}
	h.srv.Enqueue(
		fakeai.TextThenTools("I will write it.", call("toolu_w", "write_file", `{"path":"cut.txt","content":"cut"}`)).
			WithFinish("model_context_window_exceeded"),
		fakeai.Text("Earlier: three notes."), // the summary call
		fakeai.ToolCalls(call("toolu_ok", "write_file", `{"path":"whole.txt","content":"whole"}`)),
		fakeai.Text("Written."),
	)
	res := runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "write it", Model: claude, Mode: tools.ModeAuto})
	if res.ToolCalls != 1 {
		t.Fatalf("tool calls %d, want 1 (the retried turn's)", res.ToolCalls)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "cut.txt")); !os.IsNotExist(err) {
		t.Errorf("the cut turn's write_file ran: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "whole.txt")); err != nil || string(b) != "whole" {
		t.Errorf("the retried turn's call did not run: %q %v", b, err)
	}
}

// Anthropic pauses a long turn with stop_reason pause_turn and documents the answer: send the
// paused turn back as it came, with nothing after it, and the model continues it. A tool_use
// in a paused turn is not a finished decision and never runs.
func TestAnthropicPauseTurnContinues(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(anthropicAs(h, "anthropic", 0))
	h.srv.Enqueue(
		fakeai.TextThenTools("Searching the docs.", call("toolu_p", "write_file", `{"path":"paused.txt","content":"x"}`)).
			WithFinish("pause_turn"),
		fakeai.Text("Found it: use pause_turn."),
	)
	sid := h.session()
	res := runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "look it up", Model: claude, Mode: tools.ModeAuto})
	if res.Output != "Found it: use pause_turn." || res.ToolCalls != 0 || res.Turns != 2 {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "paused.txt")); !os.IsNotExist(err) {
		t.Errorf("the paused turn's write_file ran: %v", err)
	}
	paused := assistantRows(t, h, sid)[0].Raw
	var second struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	last := second.Messages[len(second.Messages)-1]
	if string(last) != string(paused) || !strings.Contains(string(paused), `"text":"Searching the docs."`) {
		t.Errorf("the continuation request does not end with the paused turn as stored:\nsent   %s\nstored %s", last, paused)
	}
}

// On OpenAI-compatible servers a turn's calls run only when its finish_reason says it is
// complete; a cut turn and a reason no one documented run nothing, and the run says why.
func TestOpenAIFinishReasonsThatCutATurnRunNoCall(t *testing.T) {
	for _, tc := range []struct {
		finish string
		want   core.StopReason
	}{
		{"length", core.StopTruncated},
		{"content_filter", core.StopRefused},
		{"model_length", core.StopContextExceeded}, // Mistral: the context window is full
		{"insufficient_system_resource", core.StopProviderError},
		{"abort_reason_from_a_new_server", core.StopProviderError},
	} {
		t.Run(tc.finish, func(t *testing.T) {
			h := newHarness(t)
			h.srv.Enqueue(fakeai.ToolCalls(call("c1", "write_file", `{"path":"cut.txt","content":"x"}`)).WithFinish(tc.finish))
			res := h.run(loop.RunSpec{Prompt: "write cut.txt", Model: "fake-model", Mode: tools.ModeAuto})
			if res.Status != tc.want || res.ToolCalls != 0 {
				t.Fatalf("run ended %s with %d tool calls (%s), want %s and none", res.Status, res.ToolCalls, res.Error, tc.want)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "cut.txt")); !os.IsNotExist(err) {
				t.Errorf("the cut turn's write_file ran: %v", err)
			}
			if tc.want == core.StopProviderError && !strings.Contains(res.Error, tc.finish) {
				t.Errorf("the run's error does not name the finish reason: %s", res.Error)
			}
		})
	}
}

// A reason no one documented on a turn of text alone keeps the text as the answer: nothing
// would run either way.
func TestOpenAIUnknownFinishReasonOnTextCompletes(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.Text("All done.").WithFinish("eos_reached"))
	res := h.run(loop.RunSpec{Prompt: "hi", Model: "fake-model"})
	if res.Status != core.StopCompleted || res.Output != "All done." {
		t.Fatalf("%s %q %s", res.Status, res.Output, res.Error)
	}
}
