package desktop

import "github.com/loopdesk/loopdesk/backend/chat"

// RunInNewSession starts a run with text in a new session beside the session (chat.StartNew:
// its folder, or a worktree of its own in a git folder, with its provider, model and approval
// mode), while the person stays in the session they are in: nothing of the open session or
// its Workspace tab changes. It returns the new session as the list shows it, running.
func (h *Chat) RunInNewSession(sessionID, text string) (SessionSummary, error) {
	c := h.c
	got, err := c.chat.StartNew(c.context(), sessionID, text, chat.Run{})
	if err != nil {
		return SessionSummary{}, err
	}
	return SessionSummary{Session: c.view(got.Session), Running: c.running(got.Session.ID)}, nil
}
