package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// In mode sandboxed, with the real sandbox: a plain command runs without a person, inside the
// sandbox (a write outside the folder fails), and its row and event say so; a command asking
// for network waits for a person, whose card says it would not be sandboxed and asks for
// network; the run row records the sandbox.
func TestRunInModeSandboxed(t *testing.T) {
	box, err := sandbox.Detect(context.Background())
	if err != nil {
		t.Fatalf("sandbox: %v", err) // bwrap comes with scripts/bootstrap.sh
	}
	h := newHarness(t)
	outside, err := os.MkdirTemp("/var/tmp", "loopdesk-runner-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	escape := filepath.Join(outside, "escaped")
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command",
			Arguments: `{"command":"echo in > inside.txt; echo out > ` + escape + `"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "run_shell_command", Arguments: `{"command":"true","network":true}`}),
		fakeai.Text("done"),
	)
	sid := h.session()
	shell := tools.ShellSandbox{Mode: sandbox.ModeBestEffort, Box: box}
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "x", Mode: tools.ModeSandboxed, Sandbox: shell})

	p := <-h.pending // only c2 asks
	if p.Call.ID != "c2" || p.Sandboxed {
		t.Fatalf("pending %s sandboxed=%v; want c2, not counted as sandboxed (it asks for network)", p.Call.ID, p.Sandboxed)
	}
	ev := h.rec.waitFor(t, "approval_requested", ofType(core.EventApprovalRequested, id))
	if ar := ev.Payload.(core.ApprovalRequestedPayload); ar.CallID != "c2" || ar.Sandboxed || !ar.Network {
		t.Fatalf("approval_requested %+v; want c2 with network and not sandboxed", ar)
	}
	if err := h.approver.Decide(sid, "c2", tools.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("status %s (%s)", res.Status, res.Error)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "inside.txt")); err != nil {
		t.Errorf("the write inside the folder failed: %v", err)
	}
	if _, err := os.Stat(escape); err == nil {
		t.Error("the command wrote outside the folder: it did not run in the sandbox")
	}
	sandboxed := map[string]bool{}
	for _, c := range h.rows(sid) {
		if c.Kind == store.KindToolResult {
			var r store.ToolResultPayload
			if err := json.Unmarshal(c.Payload, &r); err != nil {
				t.Fatal(err)
			}
			sandboxed[r.CallID] = r.Sandboxed
		}
	}
	if !sandboxed["c1"] || !sandboxed["c2"] {
		t.Errorf("tool_result rows sandboxed = %v; want both true (network still runs in the sandbox)", sandboxed)
	}
	fin := h.rec.waitFor(t, "tool_finished c1", func(e bus.Event) bool {
		p, ok := e.Payload.(core.ToolFinishedPayload)
		return ok && p.CallID == "c1"
	})
	if !fin.Payload.(core.ToolFinishedPayload).Sandboxed {
		t.Error("tool_finished of c1 does not say sandboxed")
	}
	run := runRow(t, h.db, sid, id)
	if want := shell.Describe(); run.Sandbox != want || !strings.Contains(run.Sandbox, "bubblewrap") {
		t.Errorf("run row sandbox %q; want %q", run.Sandbox, want)
	}
	started := h.rec.waitFor(t, "run_started", ofType(core.EventRunStarted, id))
	if s := started.Payload.(core.RunStartedPayload).Sandbox; s != shell.Describe() {
		t.Errorf("run_started sandbox %q; want %q", s, shell.Describe())
	}
}

// With the sandbox required and none available, each shell command is refused with an error
// result naming what is missing, and the run goes on to the model's answer.
func TestRunWithSandboxRequiredButMissing(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi > ran.txt"}`}),
		fakeai.Text("I could not run it."),
	)
	missing := &sandbox.UnavailableError{Reason: "bubblewrap (bwrap) is not installed or not on PATH", Fix: "install it"}
	res := h.run(loop.RunSpec{Prompt: "x", Mode: tools.ModeAuto,
		Sandbox: tools.ShellSandbox{Mode: sandbox.ModeOn, Missing: missing}})
	if res.Status != core.StopCompleted || res.Output != "I could not run it." {
		t.Fatalf("run %s %q (%s); want it to go on to the answer", res.Status, res.Output, res.Error)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ran.txt")); err == nil {
		t.Error("the command ran unconfined although the sandbox is required")
	}
	msgs := h.requests()[1]
	tool := msgs[len(msgs)-1]
	if tool.Role != "tool" || !strings.Contains(tool.Content, "bubblewrap (bwrap) is not installed") {
		t.Errorf("model got %+v; want an error naming the missing sandbox", tool)
	}
}
