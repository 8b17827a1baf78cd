package desktop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// RuleInput is a rule as the "Always allow" dialog edits it (stack.RuleInput: ACP's
// permission options offer the same rule).
type RuleInput = stack.RuleInput

// RuleView is a saved rule as Settings lists it: the rule in words (store.RuleText) and where
// it applies, by name. A fork copies its parent's session rules, so one rule the person made
// is stored once per version and fork of the session; those copies are one row here (Copies),
// and editing or deleting the row acts on every copy.
type RuleView struct {
	ID      string       `json:"id"` // the oldest copy's id
	Tool    string       `json:"tool"`
	Pattern string       `json:"pattern"`
	Effect  store.Effect `json:"effect"`
	Scope   store.Scope  `json:"scope"`
	ScopeID string       `json:"scope_id"` // the oldest copy's session, or the folder
	Text    string       `json:"text"`     // "allow write_file *.md in this session"
	Where   string       `json:"where"`    // `session “Add a multiply…” and 2 of its forks`, `folder /srv/app`
	Copies  []string     `json:"copies"`
}

// ruleViews groups the rules: session rules with the same tool, pattern and effect in one
// family of sessions (a session, its forks and versions) are one rule; a folder rule is its own.
func ruleViews(rules []store.Rule, sessions []store.Session) []RuleView {
	byID := map[string]store.Session{}
	for _, s := range sessions {
		byID[s.ID] = s
	}
	root := func(id string) string {
		for range len(sessions) + 1 { // a parent loop cannot happen; the bound keeps it so
			s, ok := byID[id]
			if !ok || s.ParentID == "" {
				return id
			}
			if _, ok := byID[s.ParentID]; !ok {
				return id // the parent was deleted: this session heads what is left
			}
			id = s.ParentID
		}
		return id
	}
	var out []RuleView
	var keys []string
	for _, r := range rules {
		key := strings.Join([]string{r.Tool, r.Pattern, string(r.Effect), string(r.Scope), r.ScopeID}, "\x00")
		if r.Scope == store.ScopeSession {
			key = strings.Join([]string{r.Tool, r.Pattern, string(r.Effect), string(r.Scope), root(r.ScopeID)}, "\x00")
		}
		if i := slices.Index(keys, key); i >= 0 {
			out[i].Copies = append(out[i].Copies, r.ID)
			continue
		}
		keys = append(keys, key)
		out = append(out, RuleView{ID: r.ID, Tool: r.Tool, Pattern: r.Pattern, Effect: r.Effect, Scope: r.Scope, ScopeID: r.ScopeID,
			Text: r.Text(), Where: "folder " + r.ScopeID, Copies: []string{r.ID}})
	}
	for i, v := range out {
		if v.Scope != store.ScopeSession {
			continue
		}
		title := byID[root(v.ScopeID)].Title
		if title == "" {
			title = DefaultTitle
		}
		out[i].Where = fmt.Sprintf("session “%s”", title)
		if n := len(v.Copies) - 1; n > 0 {
			out[i].Where += fmt.Sprintf(" and %d of its forks", n)
		}
	}
	return out
}

// ruleFamily is the saved rules of the row that holds id: the rule and its forks' copies.
func (c *core) ruleFamily(ctx context.Context, id string) ([]store.Rule, error) {
	all, err := c.db.ListAllRules(ctx)
	if err != nil {
		return nil, err
	}
	sessions, err := c.db.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range ruleViews(all, sessions) {
		if slices.Contains(v.Copies, id) {
			return slices.DeleteFunc(all, func(r store.Rule) bool { return !slices.Contains(v.Copies, r.ID) }), nil
		}
	}
	return nil, fmt.Errorf("rule %q: %w", id, store.ErrNotFound)
}
