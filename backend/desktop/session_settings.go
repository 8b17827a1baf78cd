package desktop

import (
	"time"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Per-session settings (issue 20): the window's header sets a session's approval mode
// (store.SessionMode.Approve) and budgets (store.SessionBudgets); they are kept with the
// session, so the next run of it — in the window or `loopdesk run --session` — uses them.

// SessionBudgets returns the session's own budgets (a nil field: the saved default).
func (h *Chat) SessionBudgets(sessionID string) (store.SessionBudgets, error) {
	return h.c.db.GetSessionBudgets(h.c.context(), sessionID)
}

// SetSessionBudgets stores the session's own budgets; the next run of the session uses them.
// A negative budget is refused and nothing changes.
func (h *Chat) SetSessionBudgets(sessionID string, b store.SessionBudgets) (store.SessionBudgets, error) {
	if err := h.c.db.SetSessionBudgets(h.c.context(), sessionID, b); err != nil {
		return store.SessionBudgets{}, err
	}
	return h.c.db.GetSessionBudgets(h.c.context(), sessionID)
}

// ApplySession puts a session's own approval mode and budgets over spec, except where flags
// (the command line) name a value: a flag beats the session, the session beats Settings.
func ApplySession(spec *loop.RunSpec, approve string, b store.SessionBudgets, flags Overrides) {
	if flags.ApprovalMode == nil && tools.Mode(approve).Valid() {
		spec.Mode = tools.Mode(approve)
	}
	l := &spec.Limits
	if b.MaxTurns != nil && flags.MaxTurns == nil {
		l.MaxTurns = *b.MaxTurns
	}
	if b.MaxToolCalls != nil && flags.MaxToolCalls == nil {
		l.MaxToolCalls = *b.MaxToolCalls
	}
	if b.MaxTokens != nil && flags.MaxTokens == nil {
		l.MaxTokens = *b.MaxTokens
	}
	if b.MaxCostUSD != nil && flags.MaxCostUSD == nil {
		l.MaxCostUSD = *b.MaxCostUSD
	}
	if b.TimeoutSeconds != nil && flags.Timeout == nil {
		l.Timeout = time.Duration(*b.TimeoutSeconds) * time.Second
	}
}
