package provider

import (
	"context"
	"fmt"
)

// Minimal Open for the providers branch (issue 19, configuration half): it opens the
// OpenAI-compatible client only. The model-side branch replaces this file with the real
// Open and the native Anthropic client.

// Provider kinds, as providers.json spells them.
const (
	KindOpenAI    = "openai"
	KindAnthropic = "anthropic"
)

// Model is a model client Open makes: it streams one assistant turn.
type Model interface {
	Stream(ctx context.Context, req Request, h Handler) Response
}

// Open makes the client for cfg.Kind ("" is openai). It does no I/O.
func Open(cfg Config) (Model, error) {
	switch cfg.Kind {
	case "", KindOpenAI:
		return New(cfg), nil
	case KindAnthropic:
		return nil, fmt.Errorf("provider %q: the native Anthropic client is not part of this build", cfg.Name)
	}
	return nil, fmt.Errorf("provider %q: unknown kind %q (want openai or anthropic)", cfg.Name, cfg.Kind)
}
