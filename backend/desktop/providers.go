package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Providers in the window: Settings lists and edits providers.json (never a key: the file
// names where each key is), tests a provider's connection, and each session's header shows
// and changes the provider and model its next run uses.

// providersPath is providers.json: next to the key file, in the config folder.
func (s SettingsStore) providersPath() (string, error) {
	if s.ProvidersPath != "" {
		return s.ProvidersPath, nil
	}
	if s.Keys.Dir != "" {
		return filepath.Join(s.Keys.Dir, "providers.json"), nil
	}
	return config.ProvidersPath()
}

// Providers is every provider a run can use, read now: "default" from the saved endpoint and
// key (environment fallbacks included, as Load does), and providers.json. The keys are read
// with Keys.Getenv, which sees the variables main took out of the environment.
func (s SettingsStore) Providers(ctx context.Context) (config.Providers, error) {
	r, srcs, err := s.Effective(ctx)
	if err != nil {
		return config.Providers{}, err
	}
	path, err := s.providersPath()
	if err != nil {
		return config.Providers{}, err
	}
	f, err := config.LoadProviders(path)
	if err != nil {
		return config.Providers{}, err
	}
	return config.Providers{Default: config.DefaultOf(r, srcs), File: f, Path: path, Getenv: s.Keys.Getenv}, nil
}

// ProvidersView is the providers part of Settings: the file's entries as written (to edit)
// and every provider as runs see it ("default" first, where each key comes from).
type ProvidersView struct {
	Path      string                `json:"path"`
	Providers []config.Provider     `json:"providers"`
	Infos     []config.ProviderInfo `json:"infos"`
	Error     string                `json:"error"` // why providers.json could not be read ("" when fine)
}

// ListProviders returns providers.json and every provider; a bad file is reported in Error
// with "default" still listed.
func (h *Settings) ListProviders() ProvidersView {
	ps, err := h.c.settings.Providers(h.c.context())
	path, _ := h.c.settings.providersPath()
	v := ProvidersView{Path: path, Providers: []config.Provider{}}
	if err != nil {
		v.Error = err.Error()
		set, _ := h.c.settings.Load(h.c.context())
		ps = config.Providers{Default: config.DefaultEndpoint(set.BaseURL, set.Model, "", config.KeyOrigin{From: "none"})}
	}
	v.Providers = append(v.Providers, ps.File.Providers...)
	for i := range v.Providers {
		if v.Providers[i].Models == nil {
			v.Providers[i].Models = []string{}
		}
	}
	v.Infos = ps.Infos()
	return v
}

// SaveProviders validates the entries and writes providers.json (0600); nothing is written
// when any entry is invalid. The next run of each session reads it.
func (h *Settings) SaveProviders(entries []config.Provider) (ProvidersView, error) {
	path, err := h.c.settings.providersPath()
	if err != nil {
		return ProvidersView{}, err
	}
	if err := config.SaveProviders(path, config.ProvidersFile{Providers: entries}); err != nil {
		return ProvidersView{}, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return h.ListProviders(), nil
}

// SetProviderKey stores the API key typed for the provider name (an entry of providers.json,
// saved first) in its own 0600 file (config.Keys.ProviderKeyPath) and points the entry's
// api_key_file at it; an empty key removes that file and the pointer. The key goes nowhere
// else — not the database, not providers.json, not a log — and never back to the page: the
// view says only whether each provider has a key.
func (h *Settings) SetProviderKey(name, key string) (ProvidersView, error) {
	path, err := h.c.settings.providersPath()
	if err != nil {
		return ProvidersView{}, err
	}
	f, err := config.LoadProviders(path)
	if err != nil {
		return ProvidersView{}, err
	}
	i := slices.IndexFunc(f.Providers, func(p config.Provider) bool { return p.Name == name })
	if i < 0 {
		return ProvidersView{}, fmt.Errorf("%w: no provider %q in %s: save it before its key", ErrInvalidInput, name, path)
	}
	keys := h.c.settings.Keys
	if err := keys.SetProviderKey(name, key); err != nil {
		return ProvidersView{}, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	own := keys.ProviderKeyPath(name)
	switch p := &f.Providers[i]; {
	case strings.TrimSpace(key) != "":
		p.APIKeyFile = own
	case p.APIKeyFile == own:
		p.APIKeyFile = ""
	}
	if err := config.SaveProviders(path, f); err != nil {
		return ProvidersView{}, err
	}
	return h.ListProviders(), nil
}

// TestProvider asks a provider (an entry as edited, saved or not; "default" for the saved
// endpoint) for its model list and reports success or the exact failure.
func (h *Settings) TestProvider(p config.Provider) ConnectionResult {
	ctx, cancel := context.WithTimeout(h.c.context(), 10*time.Second)
	defer cancel()
	var e config.Endpoint
	if p.Name == config.DefaultProvider {
		ps, err := h.c.settings.Providers(ctx)
		if err == nil {
			e, err = ps.Endpoint(config.DefaultProvider)
		}
		if err != nil {
			return ConnectionResult{Error: err.Error()}
		}
	} else {
		if err := (config.ProvidersFile{Providers: []config.Provider{p}}).Validate(); err != nil {
			return ConnectionResult{Error: err.Error()}
		}
		key, from, err := p.Key(h.c.settings.Keys.Getenv)
		if err != nil {
			return ConnectionResult{Error: err.Error()}
		}
		e = config.Endpoint{Provider: p, Key: key, KeyFrom: from}
	}
	models, err := listModels(ctx, e)
	if err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	return ConnectionResult{OK: true, Models: models}
}

// listModels is GET /models (OpenAI-compatible) or GET /v1/models (Anthropic).
func listModels(ctx context.Context, e config.Endpoint) ([]string, error) {
	if e.Kind != config.KindAnthropic {
		c := provider.New(provider.Config{BaseURL: e.BaseURL, APIKey: e.Key, RequestTimeout: 10 * time.Second})
		return c.ListModels(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(e.BaseURL, "/")+"/v1/models?limit=100", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-api-key", e.Key)
	req.Header.Set("anthropic-version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reach %s: %v", e.BaseURL, redact(err.Error(), e.Key))
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s: %s", e.BaseURL, res.Status, redact(strings.TrimSpace(string(body)), e.Key))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("%s: the model list is not JSON: %v", e.BaseURL, err)
	}
	out := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		out = append(out, m.ID)
	}
	return out, nil
}

// redact keeps a key out of a message a server or the transport made.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[key]")
}

// SetSessionModel sets the provider and model the session's next run uses (a running run
// keeps its own). The provider must be configured; the model may be any name the provider
// serves, listed or not.
func (s *Sessions) SetSessionModel(id, providerName, model string) (Session, error) {
	ctx := s.c.context()
	ps, err := s.c.settings.Providers(ctx)
	if err != nil {
		return Session{}, err
	}
	if providerName == "" {
		providerName = config.DefaultProvider
	}
	if !slices.Contains(ps.Names(), providerName) {
		return Session{}, fmt.Errorf("%w: %w %q (configured: %s)", ErrInvalidInput, config.ErrUnknownProvider, providerName,
			strings.Join(ps.Names(), ", "))
	}
	if strings.TrimSpace(model) == "" {
		return Session{}, fmt.Errorf("%w: choose a model", ErrInvalidInput)
	}
	if err := s.c.db.SetSessionModel(ctx, id, providerName, model); err != nil {
		return Session{}, err
	}
	x, err := s.c.db.GetSession(ctx, id)
	return s.c.view(x), err
}

// runChoice is the provider and model the session's next run uses: its own, or the
// configured default for a session that has none yet (made before anything was configured).
func (c *core) runChoice(s store.Session, r config.Resolved) (config.Choice, error) {
	if s.Model != "" {
		ch := config.Choice{Provider: s.Provider, Model: s.Model}
		if ch.Provider == "" {
			ch.Provider = config.DefaultProvider
		}
		return ch, nil
	}
	if !configured(r) {
		return config.Choice{}, ErrNotConfigured
	}
	return config.Choice{Provider: r.Provider, Model: r.Model}, nil
}

// respec gives a run the session's provider and model as they are when it starts, with
// that model's price and context window and the provider's thinking budget. It runs for
// every start (loop.Config.Respec), so a run the runner starts for queued messages uses a
// choice made during the run before it, as the header said.
func (c *core) respec(ctx context.Context, spec *loop.RunSpec) error {
	r, _, err := c.settings.Effective(ctx)
	if err != nil {
		return err
	}
	s, err := c.db.GetSession(ctx, spec.SessionID)
	if err != nil {
		return err
	}
	choice, err := c.runChoice(s, r)
	if err != nil {
		return err
	}
	ps, err := c.settings.Providers(ctx)
	if err != nil {
		return err
	}
	e, err := ps.Endpoint(choice.Provider)
	if err != nil {
		return err
	}
	spec.Provider, spec.Model, spec.ThinkingBudget = choice.Provider, choice.Model, e.ThinkingBudget
	spec.Limits.Price = config.PriceOf(r.Prices, choice.Model).Price
	spec.Limits.ContextWindow = config.ContextWindowOf(r.ContextWindows, choice.Model)
	spec.Vision = r.VisionOf(choice.Provider, choice.Model)
	return nil
}
