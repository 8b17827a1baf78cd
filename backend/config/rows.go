package config

import (
	"encoding/json"
	"os"
)

// Row is one effective setting as `loopdesk settings --json` prints it and the window's
// Settings shows it: its value and where that value came from. The API key is only whether
// one was found.
type Row struct {
	Source
	Value any
}

// MarshalJSON writes {"setting","value","source","detail"}: the command line's contract.
func (r Row) MarshalJSON() ([]byte, error) {
	v := r.Value
	if p, ok := v.([]Price); ok {
		v = rowPrices(p)
	}
	return json.Marshal(struct {
		Setting string `json:"setting"`
		Value   any    `json:"value"`
		Source  string `json:"source"`
		Detail  string `json:"detail"`
	}{r.Setting, v, string(r.Source.Layer), r.Source.Detail})
}

// rowPrice is a row of the price table as the rows print it (docs/cli.md): both cache prices
// always, 0 when unset. Price, like a run's limits, leaves them out; this is the rows' wire
// format of the same price, converted here only.
type rowPrice struct {
	Model             string  `json:"model"`
	InputPerMTok      float64 `json:"input_per_mtok"`
	OutputPerMTok     float64 `json:"output_per_mtok"`
	CacheReadPerMTok  float64 `json:"cache_read_per_mtok"`
	CacheWritePerMTok float64 `json:"cache_write_per_mtok"`
}

func rowPrices(ps []Price) []rowPrice {
	out := make([]rowPrice, len(ps))
	for i, p := range ps {
		out[i] = rowPrice{p.Model, p.InputPerMTok, p.OutputPerMTok, p.CacheReadPerMTok, p.CacheWritePerMTok}
	}
	return out
}

// Rows pairs each source Effective returned with its value, in Effective's order, then the
// providers (every provider a run can use, never a key).
func Rows(r Resolved, srcs []Source, ps Providers) []Row {
	l := r.Limits
	values := map[string]any{
		"provider":        r.Provider,
		"base_url":        r.BaseURL,
		"model":           r.Model,
		"api_key":         r.APIKey != "",
		"approval_mode":   string(r.ApprovalMode),
		"max_turns":       l.MaxTurns,
		"max_tool_calls":  l.MaxToolCalls,
		"max_tokens":      l.MaxTokens,
		"max_cost_usd":    l.MaxCostUSD,
		"timeout":         l.Timeout.String(),
		"price":           l.Price,
		"context_window":  l.ContextWindow,
		"prices":          r.Prices,
		"context_windows": r.ContextWindows,
		"vision":          r.Vision,
	}
	rows := make([]Row, 0, len(srcs)+1)
	for _, s := range srcs {
		rows = append(rows, Row{Source: s, Value: values[s.Setting]})
	}
	// providers.json's source is the file when it exists (the window's Settings writes it
	// too), else the default.
	src := Source{Setting: "providers", Layer: LayerDefault, Detail: ps.Path}
	if _, err := os.Stat(ps.Path); err == nil {
		src.Layer = LayerSaved
	}
	return append(rows, Row{Source: src, Value: ps.Infos()})
}

// KeyOriginOf is where the default provider's key came from, from Effective's sources.
func KeyOriginOf(srcs []Source) KeyOrigin {
	for _, s := range srcs {
		if s.Setting != "api_key" {
			continue
		}
		switch s.Layer {
		case LayerEnv:
			return KeyOrigin{From: "env", Name: s.Detail, Found: true}
		case LayerSaved:
			return KeyOrigin{From: "file", Name: s.Detail, Found: true}
		}
	}
	return KeyOrigin{From: "none"}
}

// DefaultOf is the "default" provider as r resolved it: its endpoint, the key, and the model
// when the default provider is the one in use (a saved model belongs to the saved provider).
func DefaultOf(r Resolved, srcs []Source) Endpoint {
	model := r.Model
	if r.Provider != DefaultProvider {
		model = ""
	}
	return DefaultEndpoint(r.BaseURL, model, r.APIKey, KeyOriginOf(srcs))
}
