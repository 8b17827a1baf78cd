// Package desktop holds the five services the window binds (Sessions, Chat, Settings,
// Workspace, Window; services.go) and what they share: settings, the model the runner
// calls, the workspace file views and watchers, notifications. app.go only wires them to
// Wails (options, dialogs, the error formatter); the page calls the services' methods
// directly through the generated bindings.
package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The settings' types live with the configuration layering (backend/config), which every
// front end reads; the window's Settings screen edits them under these names.
type (
	Budgets       = config.Budgets
	Price         = config.Price
	ContextWindow = config.ContextWindow
)

// Theme is the window's colour scheme.
type Theme string

// Themes.
const (
	ThemeSystem Theme = "system" // follow the desktop
	ThemeLight  Theme = "light"
	ThemeDark   Theme = "dark"
)

// SavedSettings is everything the settings screen edits except the key, plus
// where the key comes from. The key itself never leaves Go.
type SavedSettings struct {
	// Provider is the provider new sessions use with Model ("default": BaseURL and the key
	// below; any other name: an entry of providers.json).
	Provider       string          `json:"provider"`
	BaseURL        string          `json:"base_url"`
	Model          string          `json:"model"`
	HasKey         bool            `json:"has_key"`
	KeySource      string          `json:"key_source"` // "", "env" or "file"
	Configured     bool            `json:"configured"` // a provider with an endpoint, and a model, are set
	ApprovalMode   string          `json:"approval_mode"`
	Budgets        Budgets         `json:"budgets"`
	Prices         []Price         `json:"prices"`
	ContextWindows []ContextWindow `json:"context_windows"`
	// Vision says per provider's model whether it is sent images (vision.go); none is auto.
	Vision []ModelVision `json:"vision"`
	Theme  Theme         `json:"theme"`
	// Notifications: desktop notifications when a call waits or a run ends while the window
	// is not focused (notifications.go). On unless turned off.
	Notifications bool `json:"notifications"`
	// Problem is why the saved settings cannot be used as they are (a config.SettingError,
	// the same words `loopdesk run` and `loopdesk settings` exit 2 with): Settings shows it,
	// and no run starts until a valid value is saved. "" when they can.
	Problem string `json:"problem"`
}

// SettingsInput is what the settings screen saves. An empty APIKey keeps the
// saved key; ClearKey removes it.
type SettingsInput struct {
	Provider       string          `json:"provider"` // "" is "default"
	BaseURL        string          `json:"base_url"`
	Model          string          `json:"model"`
	APIKey         string          `json:"api_key"`
	ClearKey       bool            `json:"clear_key"`
	ApprovalMode   string          `json:"approval_mode"`
	Budgets        Budgets         `json:"budgets"`
	Prices         []Price         `json:"prices"`
	ContextWindows []ContextWindow `json:"context_windows"`
	Vision         []ModelVision   `json:"vision"`
	Theme          Theme           `json:"theme"`
	// Notifications turns desktop notifications on or off; nil keeps the saved choice.
	Notifications *bool `json:"notifications,omitempty"`
}

// Keys of the settings table (config.Setting* are the ones every front end reads). The API
// key is never one of them.
const (
	keyProvider       = config.SettingProvider
	keyBaseURL        = config.SettingBaseURL
	keyModel          = config.SettingModel
	keyApprovalMode   = config.SettingApprovalMode
	keyBudgets        = config.SettingBudgets
	keyPrices         = config.SettingPrices
	keyContextWindows = config.SettingContextWindows
	keyTheme          = "ui.theme"
)

// DefaultBudgets and DefaultContextWindow: config's, under the window's names.
var DefaultBudgets = config.DefaultBudgets

const DefaultContextWindow = config.DefaultContextWindow

// Settings stores and reads the settings. Getenv is used for the defaults
// the CLI also honours (OPENAI_BASE_URL, LOOPDESK_MODEL); nil means os.Getenv.
type SettingsStore struct {
	DB     *store.DB
	Keys   config.Keys
	Getenv func(string) string
	// ProvidersPath is providers.json; "" is providers.json next to the key file (Keys.Dir),
	// else config.ProvidersPath().
	ProvidersPath string
}

func (s SettingsStore) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

// Load returns the current settings, with defaults filled in.
func (s SettingsStore) Load(ctx context.Context) (SavedSettings, error) {
	get := func(k string) (string, error) {
		v, _, err := s.DB.GetSetting(ctx, k)
		return v, err
	}
	var out SavedSettings
	var err error
	if out.BaseURL, err = get(keyBaseURL); err != nil {
		return SavedSettings{}, err
	}
	if out.Model, err = get(keyModel); err != nil {
		return SavedSettings{}, err
	}
	// Until the person saves settings, the environment the CLI reads provides them.
	if out.BaseURL == "" {
		out.BaseURL = strings.TrimRight(strings.TrimSpace(s.getenv("OPENAI_BASE_URL")), "/")
	}
	if out.Model == "" {
		out.Model = strings.TrimSpace(s.getenv("LOOPDESK_MODEL"))
	}
	if out.Provider, err = get(keyProvider); err != nil {
		return SavedSettings{}, err
	}
	if out.Provider == "" {
		out.Provider = config.DefaultProvider
	}
	key, src, err := s.Keys.Key()
	if err != nil {
		return SavedSettings{}, err
	}
	out.HasKey, out.KeySource = key != "", string(src)

	if out.ApprovalMode, err = get(keyApprovalMode); err != nil {
		return SavedSettings{}, err
	}
	if out.ApprovalMode == "" {
		out.ApprovalMode = string(tools.ModeAsk)
	}
	theme, err := get(keyTheme)
	if err != nil {
		return SavedSettings{}, err
	}
	if out.Theme = Theme(theme); out.Theme != ThemeLight && out.Theme != ThemeDark {
		out.Theme = ThemeSystem
	}
	out.Notifications = true
	if v, err := get(keyNotifications); err != nil {
		return SavedSettings{}, err
	} else if v == "off" {
		out.Notifications = false
	}
	out.Budgets = DefaultBudgets
	for _, j := range []struct {
		key string
		dst any
	}{{keyBudgets, &out.Budgets}, {keyPrices, &out.Prices}, {keyContextWindows, &out.ContextWindows}, {keyVision, &out.Vision}} {
		v, err := get(j.key)
		if err != nil {
			return SavedSettings{}, err
		}
		if v != "" {
			_ = json.Unmarshal([]byte(v), j.dst) // a value that does not parse is the Problem below
		}
	}
	if out.Prices == nil {
		out.Prices = []Price{}
	}
	if out.ContextWindows == nil {
		out.ContextWindows = []ContextWindow{}
	}
	if out.Vision == nil {
		out.Vision = []ModelVision{}
	}
	// What runs use is the layering every front end shares: whether a run can start, and
	// why not, come from it, not from this form's view of the saved layer.
	r, _, err := s.Effective(ctx)
	var bad *config.SettingError
	switch {
	case errors.As(err, &bad):
		out.Problem = err.Error()
	case err != nil:
		return SavedSettings{}, err
	default:
		out.Configured = configured(r)
	}
	return out, nil
}

// Effective is the configuration a run started from the window uses, resolved by the one
// function the command line uses too (config.Effective): defaults < saved < environment.
// The window has no flags. A saved value that cannot be used is a *config.SettingError.
func (s SettingsStore) Effective(ctx context.Context) (config.Resolved, []config.Source, error) {
	return config.Effective(ctx, s.DB, s.DB.Path(), s.Keys, s.getenv, config.Overrides{})
}

// configured: a run can start, that is a model is chosen (the default provider always has an
// endpoint: OpenAI's when nothing names one, as for `loopdesk run`).
func configured(r config.Resolved) bool { return r.Model != "" }

// Save validates in and stores it; nothing is stored when anything is invalid.
func (s SettingsStore) Save(ctx context.Context, in SettingsInput) (SavedSettings, error) {
	base := strings.TrimRight(strings.TrimSpace(in.BaseURL), "/")
	prov, err := s.checkProvider(in.Provider)
	if err != nil {
		return SavedSettings{}, err
	}
	// The default provider's endpoint is needed only when it is the one in use.
	if base != "" || prov == config.DefaultProvider {
		if err := CheckBaseURL(base); err != nil {
			return SavedSettings{}, err
		}
	}
	model := strings.TrimSpace(in.Model)
	if model == "" {
		return SavedSettings{}, errors.New("choose a model")
	}
	mode := in.ApprovalMode
	if mode == "" {
		mode = string(tools.ModeAsk)
	}
	if !tools.Mode(mode).Valid() {
		return SavedSettings{}, fmt.Errorf("unknown approval mode %q (ask, read-only, sandboxed, auto or deny)", mode)
	}
	theme := in.Theme
	if theme == "" {
		theme = ThemeSystem
	}
	if theme != ThemeSystem && theme != ThemeLight && theme != ThemeDark {
		return SavedSettings{}, fmt.Errorf("unknown theme %q", theme)
	}
	b := in.Budgets
	if b.MaxTurns < 0 || b.MaxToolCalls < 0 || b.MaxTokens < 0 || b.MaxCostUSD < 0 || b.TimeoutSeconds < 0 ||
		math.IsNaN(b.MaxCostUSD) || math.IsInf(b.MaxCostUSD, 0) {
		return SavedSettings{}, errors.New("budgets cannot be negative")
	}
	prices := []Price{}
	seen := map[string]bool{}
	for _, p := range in.Prices {
		p.Model = strings.TrimSpace(p.Model)
		switch {
		case p.Model == "":
			return SavedSettings{}, errors.New("every price needs a model name")
		case seen["p:"+p.Model]:
			return SavedSettings{}, fmt.Errorf("two prices for model %q", p.Model)
		case p.Invalid():
			return SavedSettings{}, fmt.Errorf("the price of %q cannot be negative", p.Model)
		}
		seen["p:"+p.Model] = true
		prices = append(prices, p)
	}
	windows := []ContextWindow{}
	for _, w := range in.ContextWindows {
		w.Model = strings.TrimSpace(w.Model)
		switch {
		case w.Model == "":
			return SavedSettings{}, errors.New("every context window needs a model name")
		case seen["w:"+w.Model]:
			return SavedSettings{}, fmt.Errorf("two context windows for model %q", w.Model)
		case w.Tokens < 1024:
			return SavedSettings{}, fmt.Errorf("the context window of %q must be at least 1024 tokens", w.Model)
		}
		seen["w:"+w.Model] = true
		windows = append(windows, w)
	}
	vision, err := checkVision(in.Vision)
	if err != nil {
		return SavedSettings{}, err
	}
	switch {
	case in.ClearKey:
		if err := s.Keys.SetKey(""); err != nil {
			return SavedSettings{}, err
		}
	case strings.TrimSpace(in.APIKey) != "":
		if err := s.Keys.SetKey(in.APIKey); err != nil {
			return SavedSettings{}, err
		}
	}
	bj, _ := json.Marshal(b)
	pj, _ := json.Marshal(prices)
	wj, _ := json.Marshal(windows)
	vj, _ := json.Marshal(vision)
	kvs := [][2]string{{keyProvider, prov}, {keyBaseURL, base}, {keyModel, model}, {keyApprovalMode, mode},
		{keyTheme, string(theme)}, {keyBudgets, string(bj)}, {keyPrices, string(pj)}, {keyContextWindows, string(wj)}, {keyVision, string(vj)}}
	if in.Notifications != nil {
		kvs = append(kvs, [2]string{keyNotifications, map[bool]string{true: "on", false: "off"}[*in.Notifications]})
	}
	// One transaction: a failure leaves the previous settings whole.
	if err := s.DB.SetSettings(ctx, kvs); err != nil {
		return SavedSettings{}, err
	}
	return s.Load(ctx)
}

// CheckBaseURL refuses anything that is not an absolute http(s) URL.
func CheckBaseURL(base string) error {
	if base == "" {
		return errors.New("enter the endpoint's base URL, e.g. http://localhost:11434/v1")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", base)
	}
	return nil
}

// Price returns the price of model (zero when unlisted: local models are free).
func (s SavedSettings) Price(model string) Price { return config.PriceOf(s.Prices, model) }

// ContextWindow returns model's context window, or DefaultContextWindow.
func (s SavedSettings) ContextWindow(model string) int64 {
	return config.ContextWindowOf(s.ContextWindows, model)
}

// checkProvider returns the provider name to save: "default", or an entry of providers.json.
func (s SettingsStore) checkProvider(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == config.DefaultProvider {
		return config.DefaultProvider, nil
	}
	path, err := s.providersPath()
	if err != nil {
		return "", err
	}
	f, err := config.LoadProviders(path)
	if err != nil {
		return "", err
	}
	if _, ok := f.Find(name); !ok {
		return "", fmt.Errorf("%w: no provider %q in %s", ErrInvalidInput, name, path)
	}
	return name, nil
}
