package tools

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Mode is a session's approval mode.
type Mode string

const (
	ModeAsk      Mode = "ask"       // every call asks the person (the default)
	ModeReadOnly Mode = "read-only" // read-only tools run, others ask
	ModeAuto     Mode = "auto"      // everything runs
	ModeDeny     Mode = "deny"      // nothing runs, whatever the rules say
	// ModeReview: read-only tools run; every other call asks, and write_file and edit_file
	// show their hunks first: the person keeps, drops or edits each (Decision.Hunks) and
	// only what was kept is written (backend/extend, review.go).
	ModeReview Mode = "review"
	// ModeSandboxed runs without asking what cannot reach past the folder: the
	// built-in file tools (confined to the workspace), read-only tools, and shell
	// commands that run in the sandbox (Request.Sandboxed); everything else asks.
	ModeSandboxed Mode = "sandboxed"
	// ModePerson is never a session's mode: the loop's core asks about a call only the
	// person approves (a remember call, a message to another session) under it. Only the
	// person, or an allow rule naming that very tool, approves such a call: no mode, no
	// "every call" rule, no hook's allow and no skill grant (core.ApprovalPerson).
	ModePerson Mode = core.ApprovalPerson
)

// OrDefault is m, or ModeAsk for a spec that names no mode.
func (m Mode) OrDefault() Mode {
	if m == "" {
		return ModeAsk
	}
	return m
}

// Valid reports whether m is one of the modes.
func (m Mode) Valid() bool {
	switch m {
	case ModeAsk, ModeReadOnly, ModeAuto, ModeDeny, ModeSandboxed, ModeReview:
		return true
	}
	return false
}

// Effect is what the policy says about a call: the stored rules' effects (one set of rule
// enums; the store keeps them, the policy decides with them).
type Effect = store.Effect

const (
	EffectAllow = store.EffectAllow
	EffectAsk   = store.EffectAsk
	EffectDeny  = store.EffectDeny
)

// Scope is what a rule applies to: one session, or every session in a workspace.
type Scope = store.Scope

// Rule scopes.
const (
	ScopeSession    = store.ScopeSession
	ScopeWorkspace  = store.ScopeWorkspace
	ScopeEverywhere = store.ScopeEverywhere
)

// Rule is a stored allow/ask/deny rule. Tool is a tool name or "*". Pattern is
// matched against the command of run_shell_command (where "*" crosses spaces and
// slashes) or the path argument of other tools (a glob where ** spans folders and a
// pattern without "/" matches the file name); empty or "*" matches every call.
type Rule struct {
	ID      string
	Tool    string
	Pattern string
	Effect  Effect
	Scope   Scope
	ScopeID string // the session id or the workspace root
}

// evaluate applies the policy to one call. It is pure. Precedence, strongest first:
// mode deny; a matching deny rule; a matching ask rule; a matching allow rule; the
// mode's default (ask: ask; read-only: allow read-only tools, ask others; auto:
// allow; sandboxed: see ModeSandboxed, a shell call counting as sandboxed only through
// the sandboxed input; an unknown mode: ask). by names the deciding rule ("rule:<id>") or
// mode ("mode:<mode>").
//
// root is the workspace root, so an absolute path argument inside the workspace matches the
// same rules as its relative form; sandboxed says the call would run in the sandbox
// (Request.Sandboxed).
func evaluate(mode Mode, rules []Rule, call Call, readOnly, sandboxed bool, root string) (Effect, string) {
	if mode == ModeDeny {
		return EffectDeny, "mode:" + string(ModeDeny)
	}
	subject, isShell := ruleSubject(call, root)
	var ask, allow *Rule
	for i := range rules {
		r := &rules[i]
		if r.Tool != "*" && r.Tool != call.Name || mode == ModePerson && r.Tool == "*" && r.Effect == EffectAllow {
			continue
		}
		switch r.Effect {
		case EffectDeny:
			if matchRule(r.Pattern, subject, isShell, true) {
				return EffectDeny, "rule:" + r.ID
			}
		case EffectAsk:
			if ask == nil && matchRule(r.Pattern, subject, isShell, true) {
				ask = r
			}
		case EffectAllow:
			if allow == nil && matchRule(r.Pattern, subject, isShell, false) {
				allow = r
			}
		}
	}
	switch {
	case ask != nil:
		return EffectAsk, "rule:" + ask.ID
	case allow != nil:
		return EffectAllow, "rule:" + allow.ID
	}
	switch mode {
	case ModeAuto:
		return EffectAllow, "mode:" + string(mode)
	case ModeReadOnly, ModeReview:
		if readOnly {
			return EffectAllow, "mode:" + string(mode)
		}
		return EffectAsk, "mode:" + string(mode)
	case ModeAsk, ModePerson:
		return EffectAsk, "mode:" + string(mode)
	case ModeSandboxed:
		if readOnly || sandboxed || confinedFileTools[call.Name] {
			return EffectAllow, "mode:" + string(mode)
		}
		return EffectAsk, "mode:" + string(mode)
	}
	return EffectAsk, "mode:" + string(ModeAsk)
}

// confinedFileTools are the built-in tools whose every path resolves inside the
// workspace (Workspace refuses the rest), so mode sandboxed runs them unasked.
var confinedFileTools = map[string]bool{
	"read_file": true, "list_dir": true, "find_files": true, "search_text": true,
	"write_file": true, "edit_file": true,
}

// ruleSubject extracts what patterns are matched against: the command of a shell
// call, else the path argument (cleaned, relative to the workspace when it can be).
func ruleSubject(call Call, root string) (string, bool) {
	var args struct {
		Command *string `json:"command"`
		Path    *string `json:"path"`
	}
	_ = json.Unmarshal([]byte(call.Arguments), &args) // unparseable: empty subject
	if call.Name == "run_shell_command" {
		if args.Command == nil {
			return "", true
		}
		return strings.TrimSpace(*args.Command), true
	}
	if args.Path == nil {
		return "", false
	}
	p := filepath.ToSlash(*args.Path)
	if root != "" && filepath.IsAbs(*args.Path) {
		if rel, err := filepath.Rel(root, filepath.Clean(*args.Path)); err == nil && !strings.HasPrefix(rel, "..") {
			p = filepath.ToSlash(rel)
		}
	}
	return path.Clean(p), false
}

// shellControl are the characters that chain or redirect commands.
const shellControl = ";&|\n`$<>()"

// matchRule matches a rule pattern. For shell commands, deny and ask rules (strict)
// also match each sub-command of a chain, so "rm *" catches "ls; rm -rf x"; an
// allow rule never matches a command that chains or redirects in a way its own
// pattern does not spell out, so "git status*" does not allow "git status; rm -rf ~".
func matchRule(pattern, subject string, isShell, strict bool) bool {
	if pattern == "" || pattern == "*" || pattern == "**" {
		return true
	}
	if !isShell {
		return subject != "" && matchGlob(pattern, subject)
	}
	if matchText(pattern, subject) {
		if strict {
			return true
		}
		for _, c := range shellControl {
			if strings.ContainsRune(subject, c) && !strings.ContainsRune(pattern, c) {
				return false
			}
		}
		return true
	}
	if !strict {
		return false
	}
	for _, part := range splitCommand(subject) {
		if matchText(pattern, part) {
			return true
		}
	}
	return false
}

// splitCommand cuts a command line at ; & | newlines and ( ) into trimmed parts. It
// ignores quoting on purpose: for deny rules a false split only makes matching
// stricter.
func splitCommand(s string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(";&|\n()`", r)
	})
	out := parts[:0]
	for _, p := range parts {
		p = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p), "$"))
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Allows reports whether r alone, evaluated as Request evaluates the rules in approval mode
// ask, allows call in the folder root: the matcher a suggested rule is proven with before
// anyone is offered it (backend/approvals). r.ID must not be empty.
func (r Rule) Allows(call Call, root string) bool {
	effect, by := evaluate(ModeAsk, []Rule{r}, call, false, false, root)
	return effect == EffectAllow && by == "rule:"+r.ID
}

// RuleSubject is what a rule's pattern is matched against for call: the command of a shell
// call (isShell), else its path argument, relative to root when inside it.
func RuleSubject(call Call, root string) (subject string, isShell bool) {
	return ruleSubject(call, root)
}
