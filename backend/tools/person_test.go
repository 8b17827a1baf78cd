package tools

import (
	"context"
	"testing"
	"time"
)

// A call only the person approves (mode person: remember, a message to another session) is
// approved by the person or by an allow rule naming that tool, and by nothing else: not an
// "every call" allow rule, not a hook's allow, not a skill's grant. Deny rules and a hook's
// deny still refuse it.
func TestOnlyThePersonOrARuleForTheToolApprovesAPersonOnlyCall(t *testing.T) {
	everyCall := Rule{ID: "every", Tool: "*", Effect: EffectAllow, Scope: ScopeWorkspace, ScopeID: "/ws"}
	forRemember := Rule{ID: "remember", Tool: RememberTool, Effect: EffectAllow, Scope: ScopeSession, ScopeID: "s"}
	denyRemember := Rule{ID: "no", Tool: RememberTool, Effect: EffectDeny, Scope: ScopeWorkspace, ScopeID: "/ws"}
	grant := []Grant{{Tool: RememberTool, By: "skill:notes", Entry: "remember"}}
	cases := []struct {
		name   string
		rules  []Rule
		hook   Effect
		grants []Grant
		want   Effect
		by     string
	}{
		{"nothing saved: the person is asked", nil, "", nil, EffectAsk, "mode:person"},
		{"an every-call allow rule does not answer", []Rule{everyCall}, "", nil, EffectAsk, "mode:person"},
		{"a hook's allow does not answer", nil, EffectAllow, nil, EffectAsk, "mode:person"},
		{"a skill's grant does not answer", nil, "", grant, EffectAsk, "mode:person"},
		{"an allow rule for remember answers", []Rule{forRemember}, "", nil, EffectAllow, "rule:remember"},
		{"a deny rule refuses", []Rule{forRemember, denyRemember}, "", nil, EffectDeny, "rule:no"},
		{"a hook's deny refuses", []Rule{forRemember}, EffectDeny, nil, EffectDeny, ByHook},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewApprover(&memRules{rules: c.rules})
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			asked := ""
			d, err := a.Request(ctx, Request{SessionID: "s", Workspace: "/ws", Mode: ModePerson, Hook: c.hook, Grants: c.grants,
				Call: Call{ID: "c1", Name: RememberTool, Arguments: `{"text":"x"}`}, OnPending: func(p Pending) {
					asked = p.By
					cancel()
				}})
			got, by := EffectAsk, asked
			if asked == "" {
				if err != nil {
					t.Fatal(err)
				}
				got, by = map[bool]Effect{true: EffectAllow, false: EffectDeny}[d.Approved], d.By
			}
			if got != c.want || by != c.by {
				t.Fatalf("got %s by %q, want %s by %q", got, by, c.want, c.by)
			}
		})
	}
}
