package desktop

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Rules adapts the store's approval rules to the tools.Approver.
type Rules struct{ DB *store.DB }

var _ tools.RuleSource = Rules{}

// ListRules implements tools.RuleSource.
func (r Rules) ListRules(ctx context.Context, sessionID, workspace string) ([]tools.Rule, error) {
	rs, err := r.DB.ListRules(ctx, sessionID, workspace)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Rule, len(rs))
	for i, x := range rs {
		out[i] = tools.Rule{ID: x.ID, Tool: x.Tool, Pattern: x.Pattern, Effect: tools.Effect(x.Effect),
			Scope: string(x.Scope), ScopeID: x.ScopeID}
	}
	return out, nil
}

// RuleInput is a rule as the "Always allow" dialog edits it.
type RuleInput struct {
	Tool      string `json:"tool"`
	Pattern   string `json:"pattern"`
	Effect    string `json:"effect"`
	Scope     string `json:"scope"` // "session" or "workspace"
	SessionID string `json:"session_id"`
}

// SuggestRule is the rule "Always allow" proposes for a call: for a shell
// command, the command itself; for a file tool, its path; otherwise any
// arguments. Scoped to the session, so nothing wider is allowed by default.
func SuggestRule(sessionID string, call tools.Call) RuleInput {
	r := RuleInput{Tool: call.Name, Pattern: "*", Effect: string(tools.EffectAllow), Scope: string(store.ScopeSession), SessionID: sessionID}
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
		Effect: store.Effect(in.Effect), Scope: store.Scope(in.Scope), ScopeID: sess.ID}
	if n.Scope == store.ScopeWorkspace {
		n.ScopeID = sess.Workspace
	}
	if n.Pattern == "" {
		n.Pattern = "*"
	}
	return n
}
