package stack

import (
	"encoding/json"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// RuleInput is a rule as the "Always allow" dialog edits it.
type RuleInput struct {
	Tool      string       `json:"tool"`
	Pattern   string       `json:"pattern"`
	Effect    store.Effect `json:"effect"`
	Scope     store.Scope  `json:"scope"`
	SessionID string       `json:"session_id"`
}

// SuggestRule is the rule "Always allow" proposes for a call: for a shell
// command, the command itself; for a file tool, its path; otherwise any
// arguments. Scoped to the session, so nothing wider is allowed by default.
func SuggestRule(sessionID string, call tools.Call) RuleInput {
	r := RuleInput{Tool: call.Name, Pattern: "*", Effect: store.EffectAllow, Scope: store.ScopeSession, SessionID: sessionID}
	var a map[string]any
	if json.Unmarshal([]byte(call.Arguments), &a) != nil {
		return r
	}
	if call.Name == "run_shell_command" {
		if c, ok := a["command"].(string); ok && strings.TrimSpace(c) != "" {
			r.Pattern = strings.TrimSpace(c)
		}
	} else if p, ok := a["path"].(string); ok && p != "" {
		r.Pattern = p
	}
	return r
}

// NewRule turns the dialog's rule into the store's: a workspace-scoped rule
// applies to the session's workspace folder.
func NewRule(in RuleInput, sess store.Session) store.NewRule {
	n := store.NewRule{Tool: strings.TrimSpace(in.Tool), Pattern: strings.TrimSpace(in.Pattern),
		Effect: in.Effect, Scope: in.Scope, ScopeID: sess.ID}
	switch n.Scope {
	case store.ScopeWorkspace:
		n.ScopeID = sess.Workspace
	case store.ScopeEverywhere:
		n.ScopeID = "*"
	}
	if n.Pattern == "" {
		n.Pattern = "*"
	}
	return n
}
