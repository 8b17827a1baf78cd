package desktop

import (
	"github.com/loopdesk/loopdesk/backend/store"
)

// Per-session settings: the window's header sets a session's approval mode
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
