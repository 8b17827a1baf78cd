package stack

import (
	"context"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
)

// Models opens each run's model client from the configured providers: "default" (the
// endpoint set in Settings or the environment) and providers.json. Providers is read for
// every run, so an edit in Settings applies from the next run without a restart; the key
// is read then too and goes only to the client.
type Models struct {
	Providers func(ctx context.Context) (config.Providers, error)
	// Configure adjusts each client's configuration (timeouts, retries); nil keeps the
	// client's defaults.
	Configure func(*provider.Config)
}

var _ loop.Models = Models{}

// Model implements loop.Models.
func (m Models) Model(ctx context.Context, name string, thinkingBudget int) (loop.Model, core.Origin, error) {
	ps, err := m.Providers(ctx)
	if err != nil {
		return nil, core.Origin{}, err
	}
	e, err := ps.Endpoint(name)
	if err != nil {
		return nil, core.Origin{}, err
	}
	if e.BaseURL == "" {
		return nil, core.Origin{}, fmt.Errorf("provider %q has no base URL: set one in Settings or OPENAI_BASE_URL", e.Name)
	}
	cfg := provider.Config{Name: e.Name, Kind: string(e.Kind), BaseURL: e.BaseURL, APIKey: e.Key, ThinkingBudget: thinkingBudget}
	if len(e.Models) > 0 {
		cfg.Model = e.Models[0] // the run names its model; this is only the client's fallback
	}
	if m.Configure != nil {
		m.Configure(&cfg)
	}
	client, err := provider.Open(cfg)
	if err != nil {
		return nil, core.Origin{}, err
	}
	return client, core.Origin{Provider: e.Name, Kind: string(e.Kind)}, nil
}
