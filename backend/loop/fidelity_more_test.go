package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

const claude = "claude-sonnet-4-5"

func TestAnthropicThinkingToolUseAndMidStreamError(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(anthropicAs(h, "anthropic", 2048))
	h.srv.Enqueue(
		fakeai.TextThenTools("Let me read it.", call("toolu_a", "read_file", `{"path":"a.txt"}`)).WithReasoning("The person wants a.txt."),
		fakeai.ToolCalls(call("toolu_b", "list_dir", `{"path":"sub"}`)).WithReasoning("Now sub.").WithRedactedThinking(),
		fakeai.Text("alpha; sub holds c.txt").WithReasoning("Done."),
	)
	sid := h.session()
	res := runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "read a and list sub", Model: claude})
	if res.Turns != 3 || res.ToolCalls != 2 || res.Output != "alpha; sub holds c.txt" {
		t.Fatalf("result %+v", res)
	}
	// The prefix is read from the cache from the second request on.
	if res.CacheReadTokens == 0 || res.CacheWriteTokens == 0 || res.InputTokens <= res.CacheReadTokens {
		t.Errorf("cache usage not counted: %+v", res)
	}
	rows := assistantRows(t, h, sid)
	if rows[0].Reasoning != "The person wants a.txt." || rows[0].Text != "Let me read it." ||
		!strings.Contains(string(rows[1].Raw), `{"type":"redacted_thinking","data":"EmwK`) {
		t.Fatalf("turns stored as %+v / %s", rows[0], rows[1].Raw)
	}

	// A stream cut by an error event mid tool_use: the call never runs and nothing unpaired
	// is stored, so the next run's request is valid.
	h.srv.Enqueue(fakeai.ToolCalls(call("toolu_w", "write_file", `{"path":"x.txt","content":"x"}`)).
		WithReasoning("Write x.").WithStreamError(8, "overloaded_error"))
	cut := h.run(loop.RunSpec{SessionID: sid, Prompt: "write x", Model: claude})
	if cut.Status != core.StopProviderError || !strings.Contains(cut.Error, "Overloaded") {
		t.Fatalf("cut run: %s %q", cut.Status, cut.Error)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); err == nil {
		t.Fatal("the cut turn's tool call ran")
	}
	for _, c := range h.rows(sid) {
		if strings.Contains(string(c.Payload), "toolu_w") {
			t.Fatalf("the cut call was stored: %s %s", c.Kind, c.Payload)
		}
	}
	h.srv.Enqueue(fakeai.Text("Nothing was written.").WithReasoning("The last turn failed."))
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "did it work?", Model: claude})

	for i, r := range h.srv.Requests() {
		if r.Header.Get("x-api-key") != "test-key" || r.Header.Get("Authorization") != "" {
			t.Errorf("request %d: key sent as x-api-key %q, Authorization %q", i+1, r.Header.Get("x-api-key"), r.Header.Get("Authorization"))
		}
	}
	wireGolden(t, h, "anthropic_thinking_tools_error")
}

func TestSessionSwitchesProvider(t *testing.T) {
	h, sw := newFidelity(t)
	sid := h.session()
	sw.set(openaiAs(h, "kimi"))
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}).WithReasoning("Read a.").WithDialect(fakeai.DialectKimi),
		fakeai.Text("It says alpha.").WithReasoning("Done.").WithDialect(fakeai.DialectKimi),
	)
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "read a", Model: "kimi-k2-thinking"})

	// Claude gets Kimi's turns in the portable form, its call id made to fit Anthropic's
	// pattern on both the tool_use and its tool_result.
	sw.set(anthropicAs(h, "anthropic", 2048))
	h.srv.Enqueue(
		fakeai.ToolCalls(call("toolu_c", "read_file", `{"path":"b.txt"}`)).WithReasoning("Now b."),
		fakeai.Text("It says beta.").WithReasoning("Done."),
	)
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "and b?", Model: claude})
	body := string(h.srv.Requests()[2].Body)
	if !strings.Contains(body, `{"type":"tool_use","id":"functions_read_file_10","name":"read_file","input":{"path":"a.txt"}}`) ||
		!strings.Contains(body, `"tool_use_id":"functions_read_file_10"`) || strings.Contains(body, "reasoning_content") {
		t.Errorf("Kimi's turn not sent to Claude in the portable form: %s", body)
	}

	// Gemini 3 gets both earlier providers' turns portable; back on Kimi, its own turns go raw
	// again (the strict fake checks their reasoning_content) and Claude's portable.
	sw.set(openaiAs(h, "gemini"))
	h.srv.Enqueue(fakeai.ToolCalls(call("g1", "list_dir", `{"path":"sub"}`)).WithDialect(fakeai.DialectGemini), fakeai.Text("c.txt").WithDialect(fakeai.DialectGemini))
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "and sub?", Model: "gemini-3-pro-preview"})
	sw.set(openaiAs(h, "kimi"))
	h.srv.Enqueue(fakeai.Text("All three read.").WithReasoning("Summing up.").WithDialect(fakeai.DialectKimi))
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "summary?", Model: "kimi-k2-thinking"})
	// The Messages API fake checks pairing itself; the chat requests are checked here.
	for i, r := range h.srv.Requests() {
		var body struct {
			Messages []wireMessage `json:"messages"`
		}
		if r.Path != "/v1/chat/completions" {
			continue
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if err := pairingError(body.Messages); err != nil {
			t.Errorf("request %d: %v", i+1, err)
		}
	}
	wireGolden(t, h, "switch_provider")
}

// deepSeekLoop runs two thinking tool rounds and a final answer on DeepSeek in a new session.
func deepSeekLoop(t *testing.T, h *harness) string {
	t.Helper()
	d := fakeai.DialectDeepSeek
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}).WithReasoning("First a.").WithDialect(d),
		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"b.txt"}`}).WithReasoning("Then b.").WithDialect(d),
		fakeai.Text("alpha and beta").WithReasoning("Both read.").WithDialect(d),
	)
	sid := h.session()
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "read a and b", Model: "deepseek-v4-pro"})
	return sid
}

func TestForkInTheMiddleOfAThinkingToolLoop(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "deepseek"))
	sid := deepSeekLoop(t, h)
	var at int64
	for _, c := range h.rows(sid) {
		if c.Kind == store.KindToolResult {
			at = c.Seq // the first round's result: mid-loop, the second round not yet asked for
			break
		}
	}
	child, err := h.db.Fork(context.Background(), sid, at)
	if err != nil {
		t.Fatal(err)
	}
	// The fake remembers the parent's turns and refuses a request that drops their reasoning.
	n := len(h.srv.Requests())
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"sub"}`}).WithReasoning("Sub instead.").WithDialect(fakeai.DialectDeepSeek),
		fakeai.Text("c.txt").WithReasoning("Done.").WithDialect(fakeai.DialectDeepSeek))
	runOK(t, h, loop.RunSpec{SessionID: child.ID, Prompt: "look in sub instead", Model: "deepseek-v4-pro"})
	first := string(h.srv.Requests()[n].Body)
	if !strings.Contains(first, `"reasoning_content":"First a.","tool_calls":[{"id":"call_00_fake1"`) {
		t.Errorf("the forked thinking turn did not go back raw: %s", first)
	}
	wireGolden(t, h, "fork_mid_thinking_loop")
}

func TestExportImportThenContinue(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "deepseek"))
	sid := deepSeekLoop(t, h)
	var buf bytes.Buffer
	if err := h.db.Export(context.Background(), sid, &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "test-key") {
		t.Fatal("the export holds the API key")
	}
	imported, err := h.db.Import(context.Background(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	before, after := assistantRows(t, h, sid), assistantRows(t, h, imported.ID)
	for i := range before {
		if string(before[i].Raw) != string(after[i].Raw) || *before[i].Origin != *after[i].Origin {
			t.Fatalf("turn %d changed on import:\n%s\n%s", i, before[i].Raw, after[i].Raw)
		}
	}
	// The server still holds the first session's turns: it checks each came back intact.
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"sub"}`}).WithReasoning("Sub too.").WithDialect(fakeai.DialectDeepSeek),
		fakeai.Text("c.txt").WithReasoning("Done.").WithDialect(fakeai.DialectDeepSeek))
	runOK(t, h, loop.RunSpec{SessionID: imported.ID, Prompt: "and sub?", Model: "deepseek-v4-pro"})
	h.checkPairing()
}

func TestCompactionKeepsTheThinkingTurnsItKeeps(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(openaiAs(h, "deepseek"))
	sid := deepSeekLoop(t, h)
	var through int64
	for _, c := range h.rows(sid) {
		if c.Kind == store.KindToolResult {
			through = c.Seq // fold the first round; the second stays verbatim
			break
		}
	}
	h.srv.Enqueue(fakeai.Text("We read a.txt: alpha."))
	id, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Model: "deepseek-v4-pro", Mode: tools.ModeAuto, CompactThrough: through})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("compaction: %s %s", res.Status, res.Error)
	}
	n := len(h.srv.Requests())
	h.srv.Enqueue(fakeai.Text("beta it was.").WithReasoning("Recall.").WithDialect(fakeai.DialectDeepSeek))
	runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "what did b say?", Model: "deepseek-v4-pro"})
	body := string(h.srv.Requests()[n].Body)
	if !strings.Contains(body, "We read a.txt: alpha.") || strings.Contains(body, `"reasoning_content":"First a."`) ||
		!strings.Contains(body, `"reasoning_content":"Then b.","tool_calls":[{"id":"call_00_fake2"`) {
		t.Errorf("after compaction the kept thinking turn did not go back raw: %s", body)
	}
}
