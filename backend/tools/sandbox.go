package tools

import (
	"encoding/json"
	"fmt"
	"os/exec"

	"github.com/loopdesk/loopdesk/backend/sandbox"
)

// ShellSandbox is how run_shell_command confines the commands of one session. The
// zero value runs every command unconfined.
//
// A command runs in the sandbox when Mode is on or auto and Box is set, unless it
// asked for "unsandboxed" (refused under on). With no Box, on refuses every command
// (an error result naming what is missing, the run goes on) and auto runs it
// unconfined; Notice says so, once, for the window.
type ShellSandbox struct {
	Mode    sandbox.Mode     // on, off or auto; "" is off
	Box     *sandbox.Sandbox // from sandbox.Detect at start-up; nil when none can be made
	Missing error            // Detect's error when Box is nil, named in refusals and the notice
	Network bool             // the session allows network to every command
}

// Notice is the one plain message the window shows when commands cannot be
// sandboxed as the mode asks, or "" when nothing needs saying.
func (s ShellSandbox) Notice() string {
	if s.Box != nil || s.Mode == sandbox.ModeOff || s.Mode == "" {
		return ""
	}
	if s.Mode == sandbox.ModeOn {
		return fmt.Sprintf("Shell commands are refused: the sandbox is required but %s.", s.missing())
	}
	return fmt.Sprintf("Shell commands run WITHOUT a sandbox, with your full rights: %s.", s.missing())
}

func (s ShellSandbox) missing() string {
	if s.Missing != nil {
		return s.Missing.Error()
	}
	return "no sandbox was detected"
}

// Sandboxed reports whether call would run inside the sandbox with no more reach
// than the session grants: a run_shell_command that will be confined and does not
// ask for network the session does not allow. The approval policy's mode
// "sandboxed" runs such calls without asking (Request.Sandboxed).
func (s ShellSandbox) Sandboxed(call Call) bool {
	if call.Name != (shellTool{}).Name() {
		return false
	}
	var a shellArgs
	if err := json.Unmarshal([]byte(call.Arguments), &a); err != nil {
		return false
	}
	confined, refusal := s.decide(a)
	return confined && refusal == "" && (!a.Network || s.Network)
}

// decide says whether a command runs confined, or why it is refused.
func (s ShellSandbox) decide(a shellArgs) (confined bool, refusal string) {
	switch {
	case s.Mode == sandbox.ModeOff || s.Mode == "":
		return false, ""
	case a.Unsandboxed && s.Mode == sandbox.ModeOn:
		return false, `not run: "unsandboxed" was asked, but the sandbox is required (sandbox mode "on"); ` +
			"run it without \"unsandboxed\", or ask the person to change the sandbox setting"
	case a.Unsandboxed:
		return false, ""
	case s.Box == nil && s.Mode == sandbox.ModeOn:
		return false, "not run: the sandbox is required (sandbox mode \"on\") but " + s.missing()
	}
	return s.Box != nil, ""
}

// shellRun is how one command runs: confined by box with opts, or not (box nil).
type shellRun struct {
	box  *sandbox.Sandbox
	opts sandbox.Options
}

// plan resolves a command's arguments against the session's sandbox for the
// workspace root; a non-empty refusal means the command must not run.
func (s ShellSandbox) plan(root string, a shellArgs) (shellRun, string) {
	confined, refusal := s.decide(a)
	if !confined {
		return shellRun{}, refusal
	}
	return shellRun{box: s.Box, opts: sandbox.Options{Dir: root, Network: s.Network || a.Network}}, ""
}

// confine is runShell's hook; nil runs the command as it is.
func (r shellRun) confine() func(*exec.Cmd) error {
	if r.box == nil {
		return nil
	}
	return func(cmd *exec.Cmd) error { return r.box.Confine(cmd, r.opts) }
}

// explain is the line added to a confined command's output when the sandbox
// blocked something, or "".
func (r shellRun) explain(output string) string {
	if r.box == nil {
		return ""
	}
	return r.box.Explain(output, r.opts)
}

// ShellTool is run_shell_command confining its commands as s says.
func ShellTool(s ShellSandbox) Tool { return shellTool{sandbox: s} }

// WithShell returns a registry like r whose run_shell_command confines commands as
// s says (one per session: the sandbox setting and network are per session). The
// compiled schemas are shared; r is unchanged.
func (r *Registry) WithShell(s ShellSandbox) *Registry {
	name := (shellTool{}).Name()
	e, ok := r.byName[name]
	if !ok {
		return r
	}
	out := &Registry{order: r.order, byName: make(map[string]entry, len(r.byName))}
	for k, v := range r.byName {
		out.byName[k] = v
	}
	out.byName[name] = entry{tool: ShellTool(s), schema: e.schema}
	return out
}

// AsksNetwork reports whether call is a run_shell_command asking for network
// ("network": true), for the approval card.
func AsksNetwork(call Call) bool {
	if call.Name != (shellTool{}).Name() {
		return false
	}
	var a shellArgs
	return json.Unmarshal([]byte(call.Arguments), &a) == nil && a.Network
}

// Describe says in a few words how this session's commands run, for the run row
// and the window's header: the mode, then what confines them (or that nothing
// does, and why), then the network.
func (s ShellSandbox) Describe() string {
	mode := s.Mode
	if mode == "" {
		mode = sandbox.ModeOff
	}
	net := "no network"
	if s.Network {
		net = "network allowed"
	}
	switch {
	case mode == sandbox.ModeOff:
		return "off: unconfined"
	case s.Box != nil:
		return fmt.Sprintf("%s: %s, %s", mode, s.Box.Name(), net)
	case mode == sandbox.ModeOn:
		return "on: shell commands refused (" + s.missing() + ")"
	}
	return "auto: unconfined (" + s.missing() + ")"
}
