package tools

import (
	"fmt"
	"strings"
)

// Grant pre-approves calls from outside the rules: an active skill's allowed-tools (a skill
// the model loaded in this session). It is weaker than every rule and every hook: it only
// answers a call that the approval mode alone would ask about (see withGrant), so deny and
// ask rules, a hook's deny or ask, the deny, review and sandboxed modes and plan mode all
// still win.
type Grant struct {
	// Tool is a tool name, or "mcp__<server>__*" for every tool of one MCP server.
	Tool string
	// Pattern is matched as an allow rule's (Rule.Pattern): a shell command pattern never
	// covers a chained or redirected command it does not spell out. "" matches every call.
	Pattern string
	// By is the approval's source on its row ("skill:<name>"); Entry the allowed-tools entry
	// the grant came from, named in the reason.
	By    string
	Entry string
}

// covers reports whether g names the tool.
func (g Grant) covers(tool string) bool {
	if prefix, ok := strings.CutSuffix(g.Tool, "*"); ok {
		return strings.HasPrefix(tool, prefix)
	}
	return g.Tool == tool
}

// withGrant lets an active skill's grant answer a call the approval mode would ask about
// (by "mode:ask" or "mode:read-only"); anything a rule or a hook decided or asked, and every
// other mode, stays as it is. In auto mode nothing asks; in sandboxed mode what asks reaches
// past the sandbox, and in review mode asking is how the person reviews the hunks: a skill
// answers neither.
func withGrant(effect Effect, by string, req Request) (Effect, string, string) {
	if effect != EffectAsk || (by != "mode:"+string(ModeAsk) && by != "mode:"+string(ModeReadOnly)) {
		return effect, by, ""
	}
	subject, isShell := ruleSubject(req.Call, req.Workspace)
	for _, g := range req.Grants {
		if g.covers(req.Call.Name) && matchRule(g.Pattern, subject, isShell, false) {
			return EffectAllow, g.By, fmt.Sprintf("allow by %s (allowed-tools: %s)", g.By, g.Entry)
		}
	}
	return effect, by, ""
}
