package hooks_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/hooks"
)

// A bash hook exiting 2 denies the call with its stderr as the reason, and the run is recorded.
func TestExit2DeniesWithStderr(t *testing.T) {
	f := newFixture(t)
	guard := f.script("guard.sh", "#!/bin/bash\ninput=$(cat)\n"+
		"if echo \"$input\" | grep -q 'rm -rf'; then echo 'rm -rf is not allowed here' >&2; exit 2; fi\nexit 0\n")
	f.personalHooks(hooksConfig("PreToolUse", "Bash", cmd(guard)))

	out := f.fire(shellCall("rm -rf build"))
	if out.Decision != hooks.Deny || out.Reason != "rm -rf is not allowed here" {
		t.Fatalf("decision %q reason %q, want deny with the hook's stderr", out.Decision, out.Reason)
	}
	if len(out.Runs) != 1 {
		t.Fatalf("%d runs recorded, want 1", len(out.Runs))
	}
	r := out.Runs[0]
	if r.Event != "PreToolUse" || r.Command != guard || r.ExitCode != 2 || r.Decision != "deny" ||
		r.Stderr != "rm -rf is not allowed here\n" || r.DurationMS < 1 || r.CallID != "c1" || r.Source != "personal" {
		t.Fatalf("recorded %+v", r)
	}
	if out := f.fire(shellCall("ls")); out.Decision != "" || len(out.Runs) != 1 {
		t.Fatalf("a harmless command: decision %q, %d runs; want none and one run", out.Decision, len(out.Runs))
	}
}

// A PreToolUse hook that crashes denies the call (fail closed) unless it opted out.
func TestCrashingPreToolUseHookDenies(t *testing.T) {
	f := newFixture(t)
	crash := f.script("crash.py", "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\nraise RuntimeError('policy file missing')\n")
	f.personalHooks(hooksConfig("PreToolUse", "", cmd(crash)))
	out := f.fire(shellCall("ls"))
	if out.Decision != hooks.Deny || !strings.HasPrefix(out.Reason, "hook failed: "+crash+": exit code 1") {
		t.Fatalf("decision %q reason %q, want a fail-closed deny", out.Decision, out.Reason)
	}
	if r := out.Runs[0]; !r.Failed || r.ExitCode != 1 || !strings.Contains(r.Stderr, "RuntimeError: policy file missing") {
		t.Fatalf("recorded %+v", r)
	}

	ignore := cmd(crash)
	ignore["onFailure"] = "ignore"
	f.personalHooks(hooksConfig("PreToolUse", "", ignore))
	out = f.fire(shellCall("ls"))
	if out.Decision != "" || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "hook failed") {
		t.Fatalf("onFailure ignore: decision %q warnings %q, want the call let through with a warning", out.Decision, out.Warnings)
	}

	// Other events fail open, with a warning.
	f.personalHooks(hooksConfig("PostToolUse", "", cmd(crash)))
	in := shellCall("ls")
	in.Event = hooks.PostToolUse
	out = f.fire(in)
	if out.Decision != "" || len(out.Warnings) != 1 {
		t.Fatalf("PostToolUse crash: decision %q warnings %q", out.Decision, out.Warnings)
	}
}

// A hook sleeping past its timeout is killed with the child it started; the event does not
// wait for the child, and the call is denied.
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	f := newFixture(t)
	pidFile := filepath.Join(f.folder, "child.pid")
	slow := f.script("slow.sh", "#!/bin/bash\nsleep 300 &\necho $! > "+pidFile+"\nsleep 300\n")
	c := cmd(slow)
	c["timeout"] = 0.5
	f.personalHooks(hooksConfig("PreToolUse", "", c))
	start := time.Now()
	out := f.fire(shellCall("ls"))
	if took := time.Since(start); took > 30*time.Second { // the hook and its child sleep 300 s
		t.Fatalf("the event waited %s for a hook with a 0.5 s timeout", took)
	}
	if out.Decision != hooks.Deny || !strings.Contains(out.Reason, "timed out after 500ms") {
		t.Fatalf("decision %q reason %q", out.Decision, out.Reason)
	}
	if out.Runs[0].ExitCode != -1 {
		t.Fatalf("exit code %d, want -1 for a killed hook", out.Runs[0].ExitCode)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// JSON decisions of hooks of one event combine: deny over ask over allow; the hooks run in
// parallel: each waits until every hook of the event has started (a barrier in a folder), so
// hooks run one after another would each give up and fail, whatever the machine's load.
func TestDecisionsCombineAndHooksRunInParallel(t *testing.T) {
	f := newFixture(t)
	decide := func(name, decision string) string {
		return f.script(name, "#!/usr/bin/env python3\nimport json, os, sys, time\njson.load(sys.stdin)\n"+
			"d, n = sys.argv[1], int(sys.argv[2])\nopen(os.path.join(d, '"+name+"'), 'w').close()\n"+
			"deadline = time.time() + 20\nwhile len(os.listdir(d)) < n:\n"+
			"    if time.time() > deadline: sys.exit(1)\n    time.sleep(0.02)\n"+
			"print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': '"+decision+
			"', 'permissionDecisionReason': '"+name+" says "+decision+"'}}))\n")
	}
	allow, ask, deny := decide("allow.py", "allow"), decide("ask.py", "ask"), decide("deny.py", "deny")
	cases := []struct {
		cmds   []string
		want   string
		reason string
	}{
		{[]string{allow}, hooks.Allow, "allow.py says allow"},
		{[]string{allow, ask}, hooks.Ask, "ask.py says ask"},
		{[]string{ask, deny, allow}, hooks.Deny, "deny.py says deny"},
	}
	for i, c := range cases {
		barrier := filepath.Join(t.TempDir(), fmt.Sprintf("barrier-%d", i))
		if err := os.Mkdir(barrier, 0o755); err != nil {
			t.Fatal(err)
		}
		cs := make([]map[string]any, len(c.cmds))
		for j, x := range c.cmds {
			cs[j] = cmd(fmt.Sprintf("%s %s %d", x, barrier, len(c.cmds)))
		}
		f.personalHooks(hooksConfig("PreToolUse", "*", cs...))
		out := f.fire(shellCall("ls"))
		if out.Decision != c.want || out.Reason != c.reason {
			t.Errorf("%d hooks: %q (%q), want %q (%q) — hooks run one at a time never meet at the barrier", len(c.cmds),
				out.Decision, out.Reason, c.want, c.reason)
		}
	}
}

// Matchers: Claude Code's names for built-in tools, "|" lists, regular expressions for MCP
// tools; the hook reads Claude Code's tool_name and field names.
func TestMatchersAndClaudeCodeNames(t *testing.T) {
	f := newFixture(t)
	seen := filepath.Join(f.folder, "seen.json")
	record := f.script("record.sh", "#!/bin/bash\ncat > "+seen+"\n")
	f.personalHooks(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Edit|Write", "hooks": []any{cmd(record)}},
		map[string]any{"matcher": "mcp__github__.*", "hooks": []any{cmd(record + " mcp")}},
	}}})
	cases := []struct {
		tool string
		runs int
	}{{"edit_file", 1}, {"write_file", 1}, {"read_file", 0}, {"run_shell_command", 0}, {"mcp__github__create_issue", 1}, {"mcp__gitlab__x", 0}}
	for _, c := range cases {
		out := f.fire(hooks.Input{Event: hooks.PreToolUse, Tool: c.tool, Arguments: `{"path":"a.go","content":"x"}`, CallID: "c"})
		if len(out.Runs) != c.runs {
			t.Errorf("%s: %d hooks ran, want %d", c.tool, len(out.Runs), c.runs)
		}
	}
	f.fire(hooks.Input{Event: hooks.PreToolUse, Tool: "write_file", Arguments: `{"path":"a.go","content":"x"}`, CallID: "c9"})
	var in map[string]any
	b, _ := os.ReadFile(seen)
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("stdin %q: %v", b, err)
	}
	ti, _ := in["tool_input"].(map[string]any)
	if in["tool_name"] != "Write" || in["loopdesk_tool_name"] != "write_file" || ti["file_path"] != "a.go" || ti["path"] != "a.go" ||
		ti["content"] != "x" || in["hook_event_name"] != "PreToolUse" || in["tool_use_id"] != "c9" || in["cwd"] != f.folder ||
		in["session_id"] != f.session || in["permission_mode"] != "ask" {
		t.Fatalf("hook stdin %s", b)
	}
	if p, _ := in["transcript_path"].(string); !strings.HasSuffix(p, ".jsonl") {
		t.Fatalf("transcript_path %q", in["transcript_path"])
	}
}

// updatedInput comes back in the tool's own field names.
func TestUpdatedInputInToolFieldNames(t *testing.T) {
	f := newFixture(t)
	rewrite := f.script("rewrite.py", "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\n"+
		"ti = d['tool_input']\nti['file_path'] = 'safe/' + ti['file_path']\nti.pop('path', None)\n"+
		"print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow', 'updatedInput': ti}}))\n")
	f.personalHooks(hooksConfig("PreToolUse", "Write", cmd(rewrite)))
	out := f.fire(hooks.Input{Event: hooks.PreToolUse, Tool: "write_file", Arguments: `{"path":"a.txt","content":"hi"}`, CallID: "c"})
	if out.Decision != hooks.Allow {
		t.Fatalf("decision %q (%q)", out.Decision, out.Reason)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out.UpdatedInput), &got); err != nil || got["path"] != "safe/a.txt" || got["file_path"] != nil || got["content"] != "hi" {
		t.Fatalf("updated input %s", out.UpdatedInput)
	}
}

// UserPromptSubmit: plain stdout is context; exit 2 blocks the prompt with the reason.
// Stop: exit 2 blocks (the run goes on) and the hook is told whether it already did.
func TestPromptAndStopEvents(t *testing.T) {
	f := newFixture(t)
	ctxHook := f.script("ctx.sh", "#!/bin/bash\nprompt=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"prompt\"])')\n"+
		"if [ \"$prompt\" = secret ]; then echo 'prompts may not name secrets' >&2; exit 2; fi\necho \"branch: main\"\n")
	f.personalHooks(hooksConfig("UserPromptSubmit", "", cmd(ctxHook)))
	out := f.fire(hooks.Input{Event: hooks.UserPromptSubmit, Prompt: "fix the bug"})
	if out.Decision != "" || len(out.Context) != 1 || out.Context[0] != "branch: main" {
		t.Fatalf("context %q decision %q", out.Context, out.Decision)
	}
	out = f.fire(hooks.Input{Event: hooks.UserPromptSubmit, Prompt: "secret"})
	if out.Decision != hooks.Block || out.Reason != "prompts may not name secrets" {
		t.Fatalf("decision %q reason %q", out.Decision, out.Reason)
	}

	stop := f.script("stop.py", "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\n"+
		"if d['stop_hook_active']:\n    sys.exit(0)\nprint('tests are failing: run them again', file=sys.stderr)\nsys.exit(2)\n")
	f.personalHooks(hooksConfig("Stop", "", cmd(stop)))
	if out := f.fire(hooks.Input{Event: hooks.Stop}); out.Decision != hooks.Block || out.Reason != "tests are failing: run them again" {
		t.Fatalf("stop: %q %q", out.Decision, out.Reason)
	}
	if out := f.fire(hooks.Input{Event: hooks.Stop, Active: true}); out.Decision != "" {
		t.Fatalf("stop with stop_hook_active: %q", out.Decision)
	}
}

// A decision a hook cannot make is a failure: PreToolUse denies.
func TestUnknownPermissionDecisionFailsClosed(t *testing.T) {
	f := newFixture(t)
	odd := f.script("odd.sh", "#!/bin/bash\necho '{\"hookSpecificOutput\":{\"permissionDecision\":\"maybe\"}}'\n")
	f.personalHooks(hooksConfig("PreToolUse", "", cmd(odd)))
	if out := f.fire(shellCall("ls")); out.Decision != hooks.Deny || !strings.Contains(out.Reason, `permissionDecision "maybe"`) {
		t.Fatalf("decision %q reason %q", out.Decision, out.Reason)
	}
}
