package desktop

import (
	"errors"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// ErrNotConfigured is returned when no endpoint or model is set.
var ErrNotConfigured = errors.New("no endpoint is configured: open Settings and choose one")

// RunSpec is the agent for a run started from the window: the saved model,
// approval mode, budgets, price and context window.
func (s SavedSettings) RunSpec(sessionID, workspace, prompt string) loop.RunSpec {
	p := s.Price(s.Model)
	return loop.RunSpec{
		SessionID: sessionID,
		Workspace: workspace,
		Prompt:    prompt,
		Model:     s.Model,
		Mode:      tools.Mode(s.ApprovalMode),
		// The same prompt for every run of the session keeps prompt caches warm.
		SystemPrompt: loop.DefaultSystemPrompt(workspace),
		Limits: loop.Limits{
			MaxTurns:      s.Budgets.MaxTurns,
			MaxToolCalls:  s.Budgets.MaxToolCalls,
			MaxTokens:     s.Budgets.MaxTokens,
			MaxCostUSD:    s.Budgets.MaxCostUSD,
			Timeout:       time.Duration(s.Budgets.TimeoutSeconds) * time.Second,
			ContextWindow: s.ContextWindow(s.Model),
			Price:         p.Loop(),
		},
	}
}
