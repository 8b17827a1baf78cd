package tools

import (
	"context"
	"testing"
	"time"
)

// A hook makes a call stricter than the rules, never looser (docs/hooks.md): the table is
// the order of precedence, through the Approver as the runner calls it.
func TestHookDecisionsCombineWithRulesAndModes(t *testing.T) {
	src := &memRules{rules: []Rule{
		{ID: "deny", Tool: "run_shell_command", Pattern: "rm *", Effect: EffectDeny, Scope: ScopeWorkspace, ScopeID: "/ws"},
		{ID: "ask", Tool: "run_shell_command", Pattern: "git push*", Effect: EffectAsk, Scope: ScopeWorkspace, ScopeID: "/ws"},
		{ID: "allow", Tool: "run_shell_command", Pattern: "go test*", Effect: EffectAllow, Scope: ScopeWorkspace, ScopeID: "/ws"},
	}}
	cases := []struct {
		name    string
		mode    Mode
		command string
		hook    Effect
		want    Effect
		by      string
	}{
		{"allow never overrides a deny rule", ModeAuto, "rm -rf x", EffectAllow, EffectDeny, "rule:deny"},
		{"hook deny beats an allow rule", ModeAuto, "go test ./...", EffectDeny, EffectDeny, ByHook},
		{"hook deny in auto", ModeAuto, "ls", EffectDeny, EffectDeny, ByHook},
		{"an ask rule still asks when a hook allows", ModeAuto, "git push origin", EffectAllow, EffectAsk, "rule:ask"},
		{"hook ask asks even in auto", ModeAuto, "ls", EffectAsk, EffectAsk, ByHook},
		{"hook ask beats an allow rule", ModeAsk, "go test ./...", EffectAsk, EffectAsk, ByHook},
		{"hook allow runs unasked in ask mode", ModeAsk, "ls", EffectAllow, EffectAllow, ByHook},
		{"an allow rule stays the rule's", ModeAsk, "go test ./...", EffectAllow, EffectAllow, "rule:allow"},
		{"deny mode applies whatever a hook says", ModeDeny, "ls", EffectAllow, EffectDeny, "mode:deny"},
		{"no hook: the mode decides", ModeAuto, "ls", "", EffectAllow, "mode:auto"},
	}
	a := NewApprover(src)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			asked := ""
			d, err := a.Request(ctx, Request{SessionID: "s", Workspace: "/ws", Mode: c.mode, Call: shellCall(c.command),
				Hook: c.hook, HookReason: "the hook's reason", OnPending: func(p Pending) {
					asked = p.By
					cancel() // the test only needs to see that the person is asked
				}})
			got := EffectAsk
			if asked == "" {
				if err != nil {
					t.Fatal(err)
				}
				got = map[bool]Effect{true: EffectAllow, false: EffectDeny}[d.Approved]
			}
			by := d.By
			if got == EffectAsk {
				by = asked
			}
			if got != c.want || by != c.by {
				t.Fatalf("got %s by %q, want %s by %q", got, by, c.want, c.by)
			}
			if by == ByHook && got != EffectAsk && d.Reason != "the hook's reason" {
				t.Fatalf("reason %q, want the hook's", d.Reason)
			}
		})
	}
}
