package desktop

import (
	"context"
	"errors"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Model is the runner's model: each call reads the current endpoint and key,
// so a change in Settings applies to the next model call without a restart.
type Model struct {
	Settings SettingsStore
	// RequestTimeout and IdleTimeout bound one call; zero picks 10 min and 2 min.
	RequestTimeout, IdleTimeout time.Duration
}

var _ loop.Model = (*Model)(nil)

// ErrNotConfigured is returned when no endpoint or model is set.
var ErrNotConfigured = errors.New("no endpoint is configured: open Settings and choose one")

// Stream implements loop.Model.
func (m *Model) Stream(ctx context.Context, req provider.Request, h provider.Handler) provider.Response {
	fail := func(err error) provider.Response {
		return provider.Response{Status: provider.StatusProviderError, Err: err}
	}
	set, err := m.Settings.Load(ctx)
	if err != nil {
		return fail(err)
	}
	if !set.Configured {
		return fail(ErrNotConfigured)
	}
	key, _, err := m.Settings.Keys.Key()
	if err != nil {
		return fail(err)
	}
	rt, it := m.RequestTimeout, m.IdleTimeout
	if rt == 0 {
		rt = 10 * time.Minute
	}
	if it == 0 {
		it = 2 * time.Minute
	}
	c := provider.New(provider.Config{BaseURL: set.BaseURL, APIKey: key, Model: set.Model,
		RequestTimeout: rt, IdleTimeout: it, MaxRetries: 3})
	return c.Stream(ctx, req, h)
}

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
