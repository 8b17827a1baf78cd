package desktop

import (
	"errors"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// ErrNotConfigured is returned when no endpoint or model is set.
var ErrNotConfigured = errors.New("no endpoint is configured: open Settings and choose one")

// Resolved is the saved settings as the configuration layering resolves them (the window
// reads only the saved layer: its Settings fill in from the environment themselves).
func (s SavedSettings) Resolved() config.Resolved {
	return config.Resolved{Provider: s.Provider, BaseURL: s.BaseURL, Model: s.Model,
		ApprovalMode: tools.Mode(s.ApprovalMode), Prices: s.Prices, ContextWindows: s.ContextWindows,
		Limits: config.ModelLimits(s.Budgets, s.Prices, s.ContextWindows, s.Model)}
}

// RunSpec is the agent for a run started from the window: the saved model,
// approval mode, budgets, price and context window (config.Resolved.RunSpec, the one builder).
func (s SavedSettings) RunSpec(sessionID, workspace, prompt string) loop.RunSpec {
	return s.Resolved().RunSpec(sessionID, workspace, prompt, "")
}
