package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/store"
)

// wireOutput is the JSON a hook may print on standard output after exiting 0 (Claude Code's
// fields; others are ignored).
type wireOutput struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	SystemMessage      string          `json:"systemMessage"`
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason"`
	HookSpecificOutput *specificOutput `json:"hookSpecificOutput"`
}

type specificOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// answer is what one hook said.
type answer struct {
	hook       Hook
	ran        ran
	decision   string
	reason     string
	updated    json.RawMessage
	context    string
	system     string
	stop       bool
	stopReason string
	failed     bool
	warning    string
}

// interpret reads one hook's exit code and output as Claude Code does, except that a failing
// PreToolUse hook denies the call (unless it opted out with "onFailure": "ignore").
func interpret(in Input, h Hook, r ran) answer {
	a := answer{hook: h, ran: r}
	switch {
	case r.failure != "" || (r.exitCode != 0 && r.exitCode != 2):
		why := r.failure
		if why == "" {
			why = fmt.Sprintf("exit code %d", r.exitCode)
			if line := firstLine(r.stderr); line != "" {
				why += ": " + line
			}
		}
		return failed(a, in, "hook failed: "+h.Command+": "+why)
	case r.exitCode == 2:
		a.reason = strings.TrimSpace(r.stderr)
		if a.reason == "" {
			a.reason = "blocked by hook " + h.Command
		}
		switch in.Event {
		case PreToolUse:
			a.decision = Deny
		case UserPromptSubmit, PostToolUse, Stop:
			a.decision = Block
		default:
			a.warning = fmt.Sprintf("%s hook %s: %s", in.Event, h.Command, a.reason)
		}
		return a
	}
	out := strings.TrimSpace(r.stdout)
	var w wireOutput
	if !strings.HasPrefix(out, "{") || json.Unmarshal([]byte(out), &w) != nil {
		if in.Event == UserPromptSubmit || in.Event == SessionStart {
			a.context = out // plain output of these two events is context, as in Claude Code
		}
		return a
	}
	return structured(a, in, w)
}

// structured applies a hook's JSON answer.
func structured(a answer, in Input, w wireOutput) answer {
	a.system = w.SystemMessage
	if w.Continue != nil && !*w.Continue {
		a.stop, a.stopReason = true, w.StopReason
	}
	switch w.Decision {
	case "":
	case "block":
		a.decision, a.reason = Block, w.Reason
		if in.Event == PreToolUse {
			a.decision = Deny
		}
	case "approve":
		if in.Event == PreToolUse {
			a.decision, a.reason = Allow, w.Reason
		}
	default:
		return failed(a, in, fmt.Sprintf("hook failed: %s: decision %q (want \"block\")", a.hook.Command, w.Decision))
	}
	if s := w.HookSpecificOutput; s != nil {
		a.context = s.AdditionalContext
		if in.Event == PreToolUse {
			switch s.PermissionDecision {
			case "":
			case Allow, Deny, Ask:
				a.decision, a.reason = s.PermissionDecision, s.PermissionDecisionReason
			default:
				return failed(a, in, fmt.Sprintf("hook failed: %s: permissionDecision %q (want allow, deny or ask)",
					a.hook.Command, s.PermissionDecision))
			}
			if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" {
				a.updated = s.UpdatedInput
			}
		}
	}
	if a.stop && in.Event == PreToolUse {
		// The run stops; the call does not run on the way out.
		a.decision, a.reason = Deny, orText(a.stopReason, "a hook stopped the run")
	}
	if a.decision == Block && a.reason == "" {
		a.reason = "blocked by hook " + a.hook.Command
	}
	return a
}

// failed: PreToolUse fails closed (unless the hook opted out); other events fail open with
// a warning the person sees.
func failed(a answer, in Input, msg string) answer {
	a.failed, a.reason = true, msg
	if in.Event == PreToolUse && !a.hook.IgnoreFailure {
		a.decision = Deny
		return a
	}
	a.warning = msg
	return a
}

// combine merges the answers of one event: for PreToolUse a deny wins over an ask, an ask
// over an allow; for the others any block blocks. Every answer becomes a row.
func combine(in Input, out Outcome, answers []answer) Outcome {
	var reasons []string
	rank := map[string]int{"": 0, Allow: 1, Ask: 2, Block: 3, Deny: 3}
	for _, a := range answers {
		out.Runs = append(out.Runs, row(in, a))
		if a.warning != "" {
			out.Warnings = append(out.Warnings, a.warning)
		}
		if a.context != "" {
			out.Context = append(out.Context, a.context)
		}
		if a.system != "" {
			out.SystemMessages = append(out.SystemMessages, a.system)
		}
		if a.stop && !out.Stop {
			out.Stop, out.StopReason = true, a.stopReason
		}
		switch {
		case rank[a.decision] > rank[out.Decision]:
			out.Decision, reasons = a.decision, nil
			fallthrough
		case a.decision != "" && a.decision == out.Decision:
			if a.reason != "" {
				reasons = append(reasons, a.reason)
			}
		}
		if a.updated != nil && out.UpdatedInput == "" && a.decision != Deny {
			out.UpdatedInput = loopdeskInput(in.Tool, a.updated)
		}
	}
	out.Reason = strings.Join(reasons, "\n")
	if out.Decision == Deny {
		out.UpdatedInput = ""
	}
	return out
}

// DecisionStop is a hook row's decision when the hook answered "continue": false (a
// PreToolUse hook's row says deny: the call was denied on the way out).
const DecisionStop = "stop"

// row is the hook row of one answer.
func row(in Input, a answer) store.HookPayload {
	decision, reason := a.decision, a.reason
	if a.stop && decision != Deny {
		decision, reason = DecisionStop, orText(a.stopReason, "no reason given")
	}
	return store.HookPayload{Event: string(in.Event), Matcher: a.hook.Matcher, Command: a.hook.Command,
		Source: string(a.hook.Source), CallID: in.CallID, Tool: in.Tool, ExitCode: a.ran.exitCode,
		DurationMS: durationMS(a.ran.duration), Decision: decision, Reason: reason,
		Stderr: validUTF8(a.ran.stderr), SystemMessage: a.system, Failed: a.failed}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return validUTF8(s)
}

// validUTF8 drops a multi-byte character cut by the 4 KB cap (and any other invalid byte),
// so the row stores text.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "")
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
