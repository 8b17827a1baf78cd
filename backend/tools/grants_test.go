package tools

import (
	"context"
	"strings"
	"testing"
	"time"
)

// An active skill's allowed-tools pre-approve only what the approval mode alone would ask
// about: every rule, every hook answer and the stricter modes still win (docs/skills.md).
func TestSkillGrantsNeverLoosenTheSafetyOrder(t *testing.T) {
	src := &memRules{rules: []Rule{
		{ID: "deny", Tool: "run_shell_command", Pattern: "git push --force*", Effect: EffectDeny, Scope: ScopeWorkspace, ScopeID: "/ws"},
		{ID: "ask", Tool: "run_shell_command", Pattern: "git push*", Effect: EffectAsk, Scope: ScopeWorkspace, ScopeID: "/ws"},
	}}
	grants := []Grant{
		{Tool: "run_shell_command", Pattern: "git", By: "skill:git-helper", Entry: "Bash(git:*)"},
		{Tool: "run_shell_command", Pattern: "git *", By: "skill:git-helper", Entry: "Bash(git:*)"},
		{Tool: "mcp__github__*", By: "skill:git-helper", Entry: "mcp__github"},
		{Tool: "run_shell_command", Pattern: "rm *", By: "skill:setup", Entry: "Bash", Untrusted: true},
	}
	cases := []struct {
		name    string
		mode    Mode
		call    Call
		hook    Effect
		sandbox bool
		want    Effect
		by      string
		note    string // what the card says when a grant covered the call but was ignored
	}{
		{"a granted command runs unasked in ask mode", ModeAsk, shellCall("git status"), "", false, EffectAllow, "skill:git-helper", ""},
		{"the prefix alone", ModeAsk, shellCall("git"), "", false, EffectAllow, "skill:git-helper", ""},
		{"another program that starts alike", ModeAsk, shellCall("gitk --all"), "", false, EffectAsk, "mode:ask", ""},
		{"a chain the grant does not spell out", ModeAsk, shellCall("git status; rm -rf ~"), "", false, EffectAsk, "mode:ask", ""},
		{"read-only mode: a grant never approves a command", ModeReadOnly, shellCall("git add ."), "", false, EffectAsk, "mode:read-only", "skill grants ignored: approval mode read-only"},
		{"an untrusted project skill grants nothing", ModeAsk, shellCall("rm -rf important"), "", false, EffectAsk, "mode:ask", GrantsNotTrusted},
		{"nor under read-only", ModeReadOnly, shellCall("rm -rf important"), "", false, EffectAsk, "mode:read-only", GrantsNotTrusted},
		{"a deny rule wins", ModeAsk, shellCall("git push --force origin"), "", false, EffectDeny, "rule:deny", ""},
		{"an ask rule wins", ModeAsk, shellCall("git push origin"), "", false, EffectAsk, "rule:ask", ""},
		{"a hook's deny wins", ModeAsk, shellCall("git status"), EffectDeny, false, EffectDeny, ByHook, ""},
		{"a hook's ask wins", ModeAsk, shellCall("git status"), EffectAsk, false, EffectAsk, ByHook, ""},
		{"deny mode wins", ModeDeny, shellCall("git status"), "", false, EffectDeny, "mode:deny", ""},
		{"review mode still asks", ModeReview, shellCall("git status"), "", false, EffectAsk, "mode:review", "skill grants ignored: approval mode review"},
		{"sandboxed mode still asks about what leaves the sandbox", ModeSandboxed, shellCall("git status"), "", false, EffectAsk, "mode:sandboxed", "skill grants ignored: approval mode sandboxed"},
		{"a whole MCP server", ModeAsk, Call{ID: "c", Name: "mcp__github__create_issue", Arguments: `{}`}, "", false, EffectAllow, "skill:git-helper", ""},
		{"another server", ModeAsk, Call{ID: "c", Name: "mcp__gitlab__create_issue", Arguments: `{}`}, "", false, EffectAsk, "mode:ask", ""},
		{"a tool not granted", ModeAsk, Call{ID: "c", Name: "write_file", Arguments: `{"path":"a","content":""}`}, "", false, EffectAsk, "mode:ask", ""},
	}
	a := NewApprover(src)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			asked, note := "", ""
			d, err := a.Request(ctx, Request{SessionID: "s", Workspace: "/ws", Mode: c.mode, Call: c.call, Sandboxed: c.sandbox,
				Hook: c.hook, Grants: grants, OnPending: func(p Pending) {
					asked, note = p.By, p.Note
					cancel()
				}})
			got, by := EffectAsk, asked
			if asked == "" {
				if err != nil {
					t.Fatal(err)
				}
				got, by = map[bool]Effect{true: EffectAllow, false: EffectDeny}[d.Approved], d.By
			}
			if got != c.want || by != c.by || note != c.note {
				t.Fatalf("got %s by %q (note %q), want %s by %q (note %q)", got, by, note, c.want, c.by, c.note)
			}
			if by == "skill:git-helper" && !strings.Contains(d.Reason, "allowed-tools: ") {
				t.Fatalf("reason %q does not name the entry", d.Reason)
			}
		})
	}
}
