package desktop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Settings is the bound service for the settings screen and the approval rules.
type Settings struct{ c *core }

// ConnectionResult is the answer to "Test connection".
type ConnectionResult struct {
	OK     bool     `json:"ok"`
	Models []string `json:"models"`
	Error  string   `json:"error"`
}

// Presets lists the well-known endpoints.
func (h *Settings) Presets() []config.Preset { return config.Presets() }

// GetSettings returns the settings; the key itself never leaves Go.
func (h *Settings) GetSettings() (SavedSettings, error) { return h.c.settings.Load(h.c.context()) }

// SaveSettings validates and stores the settings in one transaction; the key goes to the key
// file.
func (h *Settings) SaveSettings(in SettingsInput) (SavedSettings, error) {
	return h.c.settings.Save(h.c.context(), in)
}

// TestConnection asks baseURL for its model list (GET /models) and reports success or the
// exact failure. An empty apiKey uses the saved key.
func (h *Settings) TestConnection(baseURL, apiKey string) ConnectionResult {
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if err := CheckBaseURL(base); err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	if strings.TrimSpace(apiKey) == "" {
		key, _, err := h.c.settings.Keys.Key()
		if err != nil {
			return ConnectionResult{Error: err.Error()}
		}
		apiKey = key
	}
	ctx, cancel := context.WithTimeout(h.c.context(), 10*time.Second)
	defer cancel()
	c := provider.New(provider.Config{BaseURL: base, APIKey: strings.TrimSpace(apiKey), RequestTimeout: 10 * time.Second})
	models, err := c.ListModels(ctx)
	if err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	return ConnectionResult{OK: true, Models: models}
}

// ListRules returns the saved approval rules as Settings shows them: in words, with where each
// applies, a rule and its forks' copies as one (RuleView).
func (h *Settings) ListRules() ([]RuleView, error) {
	ctx := h.c.context()
	all, err := h.c.db.ListAllRules(ctx)
	if err != nil {
		return nil, err
	}
	sessions, err := h.c.db.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	return ruleViews(all, sessions), nil
}

// AddRule saves an approval rule for the session or its workspace.
func (h *Settings) AddRule(in RuleInput) (store.Rule, error) {
	n, err := h.c.newRule(in)
	if err != nil {
		return store.Rule{}, err
	}
	return h.c.db.AddRule(h.c.context(), n)
}

// UpdateRule replaces the rule id — with its forks' copies, one row in Settings — by the edited
// one (tool, pattern, effect, scope), each copy in one transaction, and returns the rule as
// saved (a new id). A copy keeps its session; a new scope leaves one rule.
func (h *Settings) UpdateRule(id string, in RuleInput) (store.Rule, error) {
	ctx := h.c.context()
	family, err := h.c.ruleFamily(ctx, id)
	if err != nil {
		return store.Rule{}, err
	}
	if in.Scope != "" && in.Scope != family[0].Scope {
		n, err := h.c.newRule(in) // a new scope: resolved from the session, as when adding
		if err != nil {
			return store.Rule{}, err
		}
		saved, err := h.c.db.ReplaceRule(ctx, id, n)
		if err != nil {
			return store.Rule{}, err
		}
		return saved, h.deleteRules(ctx, family, id)
	}
	var first store.Rule
	for i, old := range family {
		n := store.NewRule{Tool: strings.TrimSpace(in.Tool), Pattern: strings.TrimSpace(in.Pattern), Effect: in.Effect,
			Scope: old.Scope, ScopeID: old.ScopeID}
		if n.Pattern == "" {
			n.Pattern = "*"
		}
		saved, err := h.c.db.ReplaceRule(ctx, old.ID, n)
		if err != nil {
			return store.Rule{}, err
		}
		if i == 0 {
			first = saved
		}
	}
	return first, nil
}

// DeleteRule removes a rule and its forks' copies (one row in Settings).
func (h *Settings) DeleteRule(id string) error {
	ctx := h.c.context()
	family, err := h.c.ruleFamily(ctx, id)
	if err != nil {
		return err
	}
	return h.deleteRules(ctx, family, "")
}

// deleteRules deletes the rules but keep.
func (h *Settings) deleteRules(ctx context.Context, rules []store.Rule, keep string) error {
	for _, r := range rules {
		if r.ID == keep {
			continue
		}
		if err := h.c.db.DeleteRule(ctx, r.ID); err != nil {
			return err
		}
	}
	return nil
}

// newRule turns the dialog's rule into the store's. Workspace rules match the root the runner
// uses: symlinks resolved.
func (c *core) newRule(in RuleInput) (store.NewRule, error) {
	s, err := c.db.GetSession(c.context(), in.SessionID)
	if err != nil {
		return store.NewRule{}, err
	}
	if in.Scope == store.ScopeWorkspace {
		ws, err := c.workspace(s.ID)
		if err != nil {
			return store.NewRule{}, err
		}
		s.Workspace = ws.Root()
		ws.Release()
	}
	return stack.NewRule(in, s), nil
}

// ruleFor is the "always allow" or "always deny" rule of a decision, checked against the
// call it is for: its effect follows the answer, whatever the page sent.
func (c *core) ruleFor(in RuleInput, sessionID, tool string, approved bool) (store.NewRule, error) {
	in.SessionID, in.Effect = sessionID, store.EffectDeny
	if approved {
		in.Effect = store.EffectAllow
	}
	if in.Tool != tool {
		return store.NewRule{}, fmt.Errorf("%w: the rule is for %q but the call is %q", ErrInvalidInput, in.Tool, tool)
	}
	return c.newRule(in)
}
