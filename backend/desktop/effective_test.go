package desktop

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// saveFromWindow stores settings the way the window's Settings screen does.
func saveFromWindow(t *testing.T, keys config.Keys) (*store.DB, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	_, err = SettingsStore{DB: db, Keys: keys, Getenv: func(string) string { return "" }}.Save(ctx, SettingsInput{
		BaseURL: "http://localhost:11434/v1", Model: "qwen3", APIKey: "sk-saved-secret", ApprovalMode: "read-only",
		Budgets:        Budgets{MaxTurns: 7, MaxToolCalls: 9, MaxTokens: 1000, MaxCostUSD: 0.5, TimeoutSeconds: 60},
		Prices:         []Price{{Model: "qwen3", Price: loopcore.Price{InputPerMTok: 1, OutputPerMTok: 2}}, {Model: "big", Price: loopcore.Price{InputPerMTok: 5, OutputPerMTok: 15}}},
		ContextWindows: []ContextWindow{{Model: "qwen3", Tokens: 32768}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return db, path
}

func sourceOf(srcs []config.Source, name string) config.Source {
	for _, s := range srcs {
		if s.Setting == name {
			return s
		}
	}
	return config.Source{}
}

func TestEffectiveUsesWhatTheWindowSaved(t *testing.T) {
	keys := config.Keys{Dir: t.TempDir()}
	db, path := saveFromWindow(t, keys)
	r, srcs, err := config.Effective(context.Background(), db, path, keys, func(string) string { return "" }, config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if r.BaseURL != "http://localhost:11434/v1" || r.Model != "qwen3" || r.APIKey != "sk-saved-secret" || r.ApprovalMode != tools.ModeReadOnly {
		t.Fatalf("resolved %+v; want the saved endpoint, model, key and mode", r)
	}
	l := r.Limits
	if l.MaxTurns != 7 || l.MaxToolCalls != 9 || l.MaxTokens != 1000 || l.MaxCostUSD != 0.5 || l.Timeout != time.Minute ||
		l.ContextWindow != 32768 || l.Price.InputPerMTok != 1 || l.Price.OutputPerMTok != 2 {
		t.Fatalf("limits %+v; want the saved budgets, qwen3's price and window", l)
	}
	for _, n := range []string{"base_url", "model", "approval_mode", "max_turns", "timeout", "price", "context_window"} {
		if s := sourceOf(srcs, n); s.Layer != config.LayerSaved || s.Detail != path {
			t.Errorf("source of %s = %+v, want saved in %s", n, s, path)
		}
	}
	if s := sourceOf(srcs, "api_key"); s.Layer != config.LayerSaved || s.Detail != keys.Path() {
		t.Errorf("source of api_key = %+v, want the key file", s)
	}
}

func TestEffectiveLayersEnvThenFlags(t *testing.T) {
	keys := config.Keys{Dir: t.TempDir()}
	db, path := saveFromWindow(t, keys)
	env := map[string]string{"OPENAI_BASE_URL": "http://env:8000/v1/", "LOOPDESK_MODEL": "big", "OPENAI_API_KEY": "sk-env"}
	model, mode, turns, timeout := "other", "deny", 3, 1500*time.Millisecond
	tests := []struct {
		name    string
		flags   config.Overrides
		check   func(config.Resolved) bool
		setting string
		layer   config.Layer
		detail  string
	}{
		{"env beats saved endpoint", config.Overrides{}, func(r config.Resolved) bool { return r.BaseURL == "http://env:8000/v1" }, "base_url", config.LayerEnv, "OPENAI_BASE_URL"},
		{"env beats the key file", config.Overrides{}, func(r config.Resolved) bool { return r.APIKey == "sk-env" }, "api_key", config.LayerEnv, "OPENAI_API_KEY"},
		{"env model takes its saved price", config.Overrides{}, func(r config.Resolved) bool { return r.Model == "big" && r.Limits.Price.OutputPerMTok == 15 }, "price", config.LayerSaved, path},
		{"env model without a window gets the default", config.Overrides{}, func(r config.Resolved) bool { return r.Limits.ContextWindow == DefaultContextWindow }, "context_window", config.LayerDefault, ""},
		{"flag beats env model", config.Overrides{Model: &model}, func(r config.Resolved) bool { return r.Model == "other" && r.Limits.Price.InputPerMTok == 0 }, "model", config.LayerFlag, "--model"},
		{"flag beats saved mode", config.Overrides{ApprovalMode: &mode}, func(r config.Resolved) bool { return r.ApprovalMode == tools.ModeDeny }, "approval_mode", config.LayerFlag, "--approve"},
		{"flag beats saved budget", config.Overrides{MaxTurns: &turns}, func(r config.Resolved) bool { return r.Limits.MaxTurns == 3 && r.Limits.MaxToolCalls == 9 }, "max_turns", config.LayerFlag, "--max-turns"},
		{"sub-second timeout kept", config.Overrides{Timeout: &timeout}, func(r config.Resolved) bool { return r.Limits.Timeout == timeout }, "timeout", config.LayerFlag, "--timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, srcs, err := config.Effective(context.Background(), db, path, keys, func(k string) string { return env[k] }, tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(r) {
				t.Errorf("resolved %+v", r)
			}
			if s := sourceOf(srcs, tc.setting); s.Layer != tc.layer || s.Detail != tc.detail {
				t.Errorf("source of %s = %+v, want %s %s", tc.setting, s, tc.layer, tc.detail)
			}
		})
	}
}

func TestEffectiveWithNothingSavedAndBadFlags(t *testing.T) {
	keys := config.Keys{Dir: t.TempDir()}
	r, srcs, err := config.Effective(context.Background(), nil, "", keys, func(string) string { return "" }, config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if r.BaseURL != config.DefaultBaseURL || r.Model != "" || r.APIKey != "" || r.ApprovalMode != tools.ModeAsk ||
		r.Limits.MaxTurns != DefaultBudgets.MaxTurns {
		t.Fatalf("defaults = %+v", r)
	}
	for _, s := range srcs {
		if s.Layer != config.LayerDefault {
			t.Errorf("%s from %s with nothing saved", s.Setting, s.Layer)
		}
	}
	bad, neg := "sometimes", -1
	for _, f := range []config.Overrides{{ApprovalMode: &bad}, {MaxTurns: &neg}} {
		if _, _, err := config.Effective(context.Background(), nil, "", keys, func(string) string { return "" }, f); err == nil {
			t.Errorf("config.Effective(%+v) accepted a bad flag", f)
		}
	}
}

func TestSourcesNeverCarryTheKey(t *testing.T) {
	keys := config.Keys{Dir: t.TempDir()}
	db, path := saveFromWindow(t, keys)
	_, srcs, err := config.Effective(context.Background(), db, path, keys, func(string) string { return "" }, config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range srcs {
		if strings.Contains(s.Detail, "sk-saved-secret") {
			t.Fatalf("source %+v shows the key", s)
		}
	}
}
