package config

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// This file is the one place where a front end's configuration is resolved. Layers, lowest first: built-in defaults, what the window saved
// (the settings table and the key file), environment variables, flags. The
// window edits the "saved" layer; `loopdesk run` and `loopdesk settings`
// resolve all four, so what a person set up in the window is what the CLI uses.

// Layer names where an effective value came from.
type Layer string

const (
	LayerDefault Layer = "default"
	LayerSaved   Layer = "saved" // the window's Settings (settings table; the key file)
	LayerEnv     Layer = "env"
	LayerFlag    Layer = "flag"
)

// Source tells where one setting's effective value came from. Detail names
// the environment variable, the flag, the database or the key file.
type Source struct {
	Setting string `json:"setting"`
	Layer   Layer  `json:"source"`
	Detail  string `json:"detail,omitempty"`
}

// Overrides are the flags of one command; nil means the flag was not given.
type Overrides struct {
	BaseURL, Model, ApprovalMode  *string
	MaxTurns, MaxToolCalls        *int
	MaxTokens, ContextWindow      *int64
	MaxCostUSD, PriceIn, PriceOut *float64
	Timeout                       *time.Duration
}

// Resolved is the effective configuration of a headless run. APIKey is for
// the model client only; nothing here prints it.
type Resolved struct {
	// Provider is the provider new sessions use with Model ("default" or a providers.json
	// entry); BaseURL and APIKey are the "default" provider's.
	Provider     string
	BaseURL      string
	Model        string
	APIKey       string
	ApprovalMode tools.Mode
	// Limits are the run's budgets with the price and context window of Model
	// (its table entries, or flags).
	Limits         core.Limits
	Prices         []Price
	ContextWindows []ContextWindow
	// Vision is the saved per-model vision table (vision.go); VisionOf reads it.
	Vision []ModelVision
}

// VisionOf is the run's vision choice for provider's model from the saved table.
func (r Resolved) VisionOf(provider, model string) images.Vision {
	return visionOf(r.Vision, provider, model)
}

// DefaultBaseURL is the endpoint when nothing names one.
const DefaultBaseURL = "https://api.openai.com/v1"

// SettingsReader is what Effective reads the saved layer from (*store.DB);
// nil means nothing is saved (no database yet).
type SettingsReader interface {
	GetSetting(ctx context.Context, key string) (string, bool, error)
}

// Env is the environment Effective reads; nil means os.Getenv.
type Env func(string) string

// Effective resolves the configuration: defaults, then saved (db, where
// dbName names it in the sources, and keys' file), then the environment
// (OPENAI_BASE_URL, LOOPDESK_MODEL, OPENAI_API_KEY), then flags. It returns
// the values and, for each setting, where its value came from. Errors are a
// database that cannot be read, a saved value that does not parse, an
// unreadable key file, or an invalid flag value (a bad approval mode, a
// negative limit).
func Effective(ctx context.Context, db SettingsReader, dbName string, keys Keys, env Env, flags Overrides) (Resolved, []Source, error) {
	if env == nil {
		env = os.Getenv
	}
	src := map[string]Source{}
	set := func(name string, l Layer, detail string) { src[name] = Source{Setting: name, Layer: l, Detail: detail} }
	for _, n := range settingNames {
		set(n, LayerDefault, "")
	}
	saved := savedLayer{Provider: DefaultProvider, BaseURL: DefaultBaseURL, ApprovalMode: string(tools.ModeAsk), Budgets: DefaultBudgets}
	if db != nil {
		if err := readSaved(ctx, db, &saved, func(n string) { set(n, LayerSaved, dbName) }); err != nil {
			return Resolved{}, nil, err
		}
	}
	r := Resolved{Provider: saved.Provider, BaseURL: saved.BaseURL, Model: saved.Model, ApprovalMode: tools.Mode(saved.ApprovalMode),
		Prices: saved.Prices, ContextWindows: saved.ContextWindows, Vision: saved.Vision}
	if err := r.applyKey(keys, env, set); err != nil {
		return Resolved{}, nil, err
	}
	if v := strings.TrimRight(strings.TrimSpace(env("OPENAI_BASE_URL")), "/"); v != "" {
		r.BaseURL = v
		set("base_url", LayerEnv, "OPENAI_BASE_URL")
	}
	if v := strings.TrimSpace(env("LOOPDESK_MODEL")); v != "" {
		r.Model = v
		set("model", LayerEnv, "LOOPDESK_MODEL")
	}
	flagged := func(name, flag string) { set(name, LayerFlag, "--"+flag) }
	if err := r.applyEndpointFlags(flags, flagged); err != nil {
		return Resolved{}, nil, err
	}
	// The price and window are those of the model chosen by now.
	r.Limits = ModelLimits(saved.Budgets, saved.Prices, saved.ContextWindows, r.Model)
	if PriceOf(saved.Prices, r.Model) != (Price{Model: r.Model}) {
		set("price", LayerSaved, dbName)
	}
	if hasWindow(saved.ContextWindows, r.Model) {
		set("context_window", LayerSaved, dbName)
	}
	if err := r.applyLimitFlags(flags, flagged); err != nil {
		return Resolved{}, nil, err
	}
	out := make([]Source, 0, len(settingNames))
	for _, n := range settingNames {
		out = append(out, src[n])
	}
	return r, out, nil
}

func hasWindow(ws []ContextWindow, model string) bool {
	for _, w := range ws {
		if w.Model == model {
			return true
		}
	}
	return false
}

// settingNames are the rows of `loopdesk settings`, in order.
var settingNames = []string{"provider", "base_url", "model", "api_key", "approval_mode",
	"max_turns", "max_tool_calls", "max_tokens", "max_cost_usd", "timeout",
	"price", "context_window", "prices", "context_windows", "vision"}

func (s Source) isDefault() bool { return s.Layer == LayerDefault }

// savedLayer is what the window saved that the configuration reads (the window's own
// desktop.SavedSettings adds what only the window uses: theme, notifications, key source).
type savedLayer struct {
	Provider, BaseURL, Model, ApprovalMode string
	Budgets                                Budgets
	Prices                                 []Price
	ContextWindows                         []ContextWindow
	Vision                                 []ModelVision
}

// readSaved reads what the window saved into s; saved(name) records each
// setting found. Unlike desktop.SettingsStore.Load it does not fill in from the
// environment: that is a layer of its own here.
func readSaved(ctx context.Context, db SettingsReader, s *savedLayer, saved func(string)) error {
	for _, j := range []struct {
		key, name string
		dst       *string
	}{{SettingProvider, "provider", &s.Provider}, {SettingBaseURL, "base_url", &s.BaseURL}, {SettingModel, "model", &s.Model}, {SettingApprovalMode, "approval_mode", &s.ApprovalMode}} {
		v, ok, err := db.GetSetting(ctx, j.key)
		if err != nil {
			return err
		}
		if v = strings.TrimSpace(v); ok && v != "" {
			*j.dst = v
			saved(j.name)
		}
	}
	if !tools.Mode(s.ApprovalMode).Valid() {
		return &SettingError{Key: SettingApprovalMode, Problem: fmt.Sprintf("unknown approval mode %q (ask, read-only, sandboxed, auto or deny)", s.ApprovalMode)}
	}
	for _, j := range []struct {
		key   string
		names []string
		dst   any
	}{
		{SettingBudgets, []string{"max_turns", "max_tool_calls", "max_tokens", "max_cost_usd", "timeout"}, &s.Budgets},
		{SettingPrices, []string{"prices"}, &s.Prices},
		{SettingContextWindows, []string{"context_windows"}, &s.ContextWindows},
		{SettingVision, []string{"vision"}, &s.Vision},
	} {
		v, ok, err := db.GetSetting(ctx, j.key)
		if err != nil {
			return err
		}
		if !ok || v == "" {
			continue
		}
		if err := json.Unmarshal([]byte(v), j.dst); err != nil {
			return &SettingError{Key: j.key, Problem: err.Error()}
		}
		for _, n := range j.names {
			saved(n)
		}
	}
	if s.Prices == nil {
		s.Prices = []Price{}
	}
	if s.ContextWindows == nil {
		s.ContextWindows = []ContextWindow{}
	}
	if s.Vision == nil {
		s.Vision = []ModelVision{}
	}
	return nil
}

// SettingError is a saved setting whose value Loopdesk cannot use (a hand-edited database, a
// value an older or newer version wrote). Every reader of the settings refuses it the same
// way: the window says so in Settings and refuses to start a run, the command line exits 2.
type SettingError struct {
	Key     string // the settings key
	Problem string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("saved setting %s: %s; choose a valid value in the window's Settings and save", e.Key, e.Problem)
}

// applyKey finds the key: the key file (saved), overridden by OPENAI_API_KEY.
func (r *Resolved) applyKey(keys Keys, env Env, set func(string, Layer, string)) error {
	if keys.Dir != "" {
		fileKeys := keys
		fileKeys.Getenv = func(string) string { return "" } // the file alone; the env is the next layer
		key, src, err := fileKeys.Key()
		if err != nil {
			return err
		}
		if src == KeyFile {
			r.APIKey = key
			set("api_key", LayerSaved, keys.Path())
		}
	}
	if key := strings.TrimSpace(env("OPENAI_API_KEY")); key != "" {
		r.APIKey = key
		set("api_key", LayerEnv, "OPENAI_API_KEY")
	}
	return nil
}

// applyEndpointFlags puts the endpoint, model and mode flags over the rest.
func (r *Resolved) applyEndpointFlags(f Overrides, flagged func(name, flag string)) error {
	if f.BaseURL != nil {
		r.BaseURL = strings.TrimRight(strings.TrimSpace(*f.BaseURL), "/")
		flagged("base_url", "base-url")
	}
	if f.Model != nil {
		r.Model = strings.TrimSpace(*f.Model)
		flagged("model", "model")
	}
	if f.ApprovalMode != nil {
		if !tools.Mode(*f.ApprovalMode).Valid() {
			return fmt.Errorf("--approve %q: want ask, read-only, auto or deny", *f.ApprovalMode)
		}
		r.ApprovalMode = tools.Mode(*f.ApprovalMode)
		flagged("approval_mode", "approve")
	}
	return nil
}

// applyLimitFlags puts the budget, price and window flags over the rest and
// checks the result.
func (r *Resolved) applyLimitFlags(f Overrides, flagged func(name, flag string)) error {
	l := &r.Limits
	numFlag(f.MaxTurns, &l.MaxTurns, func() { flagged("max_turns", "max-turns") })
	numFlag(f.MaxToolCalls, &l.MaxToolCalls, func() { flagged("max_tool_calls", "max-tool-calls") })
	numFlag(f.MaxTokens, &l.MaxTokens, func() { flagged("max_tokens", "max-tokens") })
	numFlag(f.MaxCostUSD, &l.MaxCostUSD, func() { flagged("max_cost_usd", "max-cost") })
	numFlag(f.ContextWindow, &l.ContextWindow, func() { flagged("context_window", "context-window") })
	numFlag(f.PriceIn, &l.Price.InputPerMTok, func() { flagged("price", "price-in") })
	numFlag(f.PriceOut, &l.Price.OutputPerMTok, func() { flagged("price", "price-out") })
	if f.Timeout != nil {
		l.Timeout = *f.Timeout
		flagged("timeout", "timeout")
	}
	if l.MaxTurns < 0 || l.MaxToolCalls < 0 || l.MaxTokens < 0 || l.MaxCostUSD < 0 || l.Timeout < 0 ||
		l.ContextWindow < 0 || l.Price.InputPerMTok < 0 || l.Price.OutputPerMTok < 0 {
		return fmt.Errorf("limits and prices cannot be negative")
	}
	return nil
}

// numFlag copies a given flag's value and records it.
func numFlag[T int | int64 | float64](v *T, dst *T, flagged func()) {
	if v != nil {
		*dst = *v
		flagged()
	}
}

// RunSpec is the agent of a run with this configuration: the one run-spec builder of every
// front end (the window's desktop.SavedSettings.RunSpec resolves to it too). An empty
// system prompt is the built-in one naming the workspace; the same prompt for every run of
// a session keeps prompt caches warm.
func (r Resolved) RunSpec(sessionID, workspace, prompt, system string) loop.RunSpec {
	if system == "" {
		system = instructions.DefaultSystemPrompt(workspace)
	}
	// Vision: the model as the "default" provider's (its Provider is ""); a caller choosing
	// another provider sets both.
	return loop.RunSpec{SessionID: sessionID, Workspace: workspace, Prompt: prompt, Model: r.Model,
		Mode: r.ApprovalMode, SystemPrompt: system, Limits: r.Limits, Vision: r.VisionOf("", r.Model)}
}

// UseModel makes model the run's model: its price and context window from the tables,
// unless flags set them. A run's model is the session's, which may differ from the one
// the configuration names.
func (r *Resolved) UseModel(model string, f Overrides) {
	if model == r.Model {
		return
	}
	r.Model = model
	if f.PriceIn == nil && f.PriceOut == nil {
		r.Limits.Price = PriceOf(r.Prices, model).Price
	}
	if f.ContextWindow == nil {
		r.Limits.ContextWindow = ContextWindowOf(r.ContextWindows, model)
	}
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
