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
	// Untrusted: the grant comes from a project skill (a file the repository wrote) whose
	// SKILL.md the person has not trusted as it is now. It approves nothing; a call it would
	// have covered says so on its card (GrantsNotTrusted).
	Untrusted bool
}

// GrantsNotTrusted is Pending.Note when a call asks that an untrusted project skill's grant
// would have covered.
const GrantsNotTrusted = "skill grants ignored: not trusted"

// covers reports whether g names the tool.
func (g Grant) covers(tool string) bool {
	if prefix, ok := strings.CutSuffix(g.Tool, "*"); ok {
		return strings.HasPrefix(tool, prefix)
	}
	return g.Tool == tool
}

// withGrant lets an active, trusted skill's grant answer a call that approval mode ask alone
// would ask about (by "mode:ask"); anything a rule or a hook decided or asked, and every other
// mode, stays as it is. A grant is never looser than the mode: read-only, deny, plan, review
// and sandboxed keep every write and command they would ask about or refuse (in review mode
// asking is how the person reviews the hunks; in sandboxed mode what asks reaches past the
// sandbox). It returns the effect, its source, the reason when a grant allowed, and a note
// for the card when a grant covered the call but was ignored: for want of trust
// (GrantsNotTrusted) or because of the mode.
func withGrant(effect Effect, by string, req Request) (Effect, string, string, string) {
	mode, isMode := strings.CutPrefix(by, "mode:")
	if effect != EffectAsk || !isMode || len(req.Grants) == 0 {
		return effect, by, "", ""
	}
	subject, isShell := ruleSubject(req.Call, req.Workspace)
	note := ""
	for _, g := range req.Grants {
		if !g.covers(req.Call.Name) || !matchRule(g.Pattern, subject, isShell, false) {
			continue
		}
		switch {
		case g.Untrusted:
			note = GrantsNotTrusted
		case mode != string(ModeAsk):
			if note == "" {
				note = "skill grants ignored: approval mode " + mode
			}
		default:
			return EffectAllow, g.By, fmt.Sprintf("allow by %s (allowed-tools: %s)", g.By, g.Entry), ""
		}
	}
	return effect, by, "", note
}
