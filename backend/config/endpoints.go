package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// KeyOrigin says where a provider's key comes from, for screens and `loopdesk settings`;
// it never holds the key.
type KeyOrigin struct {
	From  string `json:"from"`           // "env", "file" or "none"
	Name  string `json:"name,omitempty"` // the variable or the file
	Found bool   `json:"found"`
}

func (o KeyOrigin) String() string {
	if o.From == "none" || o.From == "" {
		return "no key"
	}
	s := o.From + " " + o.Name
	if !o.Found {
		s += " (not set)"
	}
	return s
}

// Key reads the provider's key: the variable api_key_env when it is set, else the file
// api_key_file. A key file that group or others can read is refused, like ssh refuses a
// private key; a missing file is no key. getenv nil is os.Getenv.
func (p Provider) Key(getenv func(string) string) (string, KeyOrigin, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p.APIKeyEnv != "" {
		if key := strings.TrimSpace(getenv(p.APIKeyEnv)); key != "" || p.APIKeyFile == "" {
			return key, KeyOrigin{From: "env", Name: p.APIKeyEnv, Found: key != ""}, nil
		}
	}
	if p.APIKeyFile == "" {
		return "", KeyOrigin{From: "none"}, nil
	}
	path := expandHome(p.APIKeyFile)
	origin := KeyOrigin{From: "file", Name: p.APIKeyFile}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", origin, nil
	}
	if err != nil {
		return "", origin, fmt.Errorf("provider %q: key file: %w", p.Name, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", origin, fmt.Errorf("provider %q: key file %s has mode %04o; it must be private: chmod 600 %s",
			p.Name, p.APIKeyFile, fi.Mode().Perm(), p.APIKeyFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", origin, fmt.Errorf("provider %q: key file: %w", p.Name, err)
	}
	key := strings.TrimSpace(string(b))
	if strings.ContainsAny(key, "\r\n") {
		return "", origin, fmt.Errorf("provider %q: key file %s must hold the key on one line", p.Name, p.APIKeyFile)
	}
	origin.Found = key != ""
	return key, origin, nil
}

// Endpoint is a provider ready to open: its entry and its key. Key is for the model
// client only and never marshalled.
type Endpoint struct {
	Provider
	Key     string `json:"-"`
	KeyFrom KeyOrigin
}

// Providers is every provider a run can choose: "default" (the endpoint configured in
// Settings and the environment) and the entries of providers.json.
type Providers struct {
	Default Endpoint
	File    ProvidersFile
	Path    string              // the file, for messages
	Getenv  func(string) string // nil: os.Getenv
}

// DefaultEndpoint is the "default" provider: baseURL and model as resolved from the saved
// settings and the environment, the key and where it came from.
func DefaultEndpoint(baseURL, model, key string, from KeyOrigin) Endpoint {
	models := []string{}
	if model != "" {
		models = append(models, model)
	}
	return Endpoint{Provider: Provider{Name: DefaultProvider, Kind: KindOpenAI, BaseURL: baseURL, Models: models},
		Key: key, KeyFrom: from}
}

// LoadAll reads providers.json (ProvidersPath) next to def.
func LoadAll(def Endpoint, getenv func(string) string) (Providers, error) {
	path, err := ProvidersPath()
	if err != nil {
		return Providers{}, err
	}
	f, err := LoadProviders(path)
	if err != nil {
		return Providers{}, err
	}
	return Providers{Default: def, File: f, Path: path, Getenv: getenv}, nil
}

// ErrUnknownProvider is wrapped by Endpoint for a name nobody configured.
var ErrUnknownProvider = errors.New("unknown provider")

// Endpoint returns the provider named name ("" is "default") with its key.
func (ps Providers) Endpoint(name string) (Endpoint, error) {
	if name == "" || name == DefaultProvider {
		return ps.Default, nil
	}
	p, ok := ps.File.Find(name)
	if !ok {
		return Endpoint{}, fmt.Errorf("%w %q (configured: %s)", ErrUnknownProvider, name, strings.Join(ps.Names(), ", "))
	}
	key, from, err := p.Key(ps.Getenv)
	if err != nil {
		return Endpoint{}, err
	}
	return Endpoint{Provider: p, Key: key, KeyFrom: from}, nil
}

// Names lists the providers: "default" first, then the file's in its order.
func (ps Providers) Names() []string {
	out := []string{DefaultProvider}
	for _, p := range ps.File.Providers {
		out = append(out, p.Name)
	}
	return out
}

// ProviderInfo is one provider as `loopdesk settings --json` and the window list it:
// everything but the key.
type ProviderInfo struct {
	Name           string    `json:"name"`
	Kind           Kind      `json:"kind"`
	BaseURL        string    `json:"base_url"`
	Models         []string  `json:"models"`
	ThinkingBudget int       `json:"thinking_budget"`
	Key            KeyOrigin `json:"key"`
	// Error says why the key could not be read (a key file others can read); "" when fine.
	Error string `json:"error,omitempty"`
}

// Infos describes every provider, "default" first. A provider whose key cannot be read is
// listed with the reason rather than failing the whole list.
func (ps Providers) Infos() []ProviderInfo {
	out := make([]ProviderInfo, 0, 1+len(ps.File.Providers))
	for _, name := range ps.Names() {
		e, err := ps.Endpoint(name)
		if err != nil {
			p, _ := ps.File.Find(name)
			out = append(out, info(Endpoint{Provider: p, KeyFrom: KeyOrigin{From: "file", Name: p.APIKeyFile}}, err.Error()))
			continue
		}
		out = append(out, info(e, ""))
	}
	return out
}

func info(e Endpoint, errText string) ProviderInfo {
	models := append([]string{}, e.Models...)
	return ProviderInfo{Name: e.Name, Kind: e.Kind, BaseURL: e.BaseURL, Models: models,
		ThinkingBudget: e.ThinkingBudget, Key: e.KeyFrom, Error: errText}
}

// Choice is a provider and a model: a session's, a run's, or the saved default.
type Choice struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// Choose picks a run's provider and model. The provider: flag, else the session's (nil for
// a new session; "" is "default"), else the saved default. The model: flag, else the
// session's when the provider is the session's, else the saved default's when the provider
// is that one, else the provider's first listed model. The provider must be configured.
func (ps Providers) Choose(flag Choice, session *Choice, saved Choice) (Choice, error) {
	norm := func(name string) string {
		if name == "" {
			return DefaultProvider
		}
		return name
	}
	c := Choice{Provider: norm(saved.Provider)}
	if session != nil {
		c.Provider = norm(session.Provider)
	}
	if flag.Provider != "" {
		c.Provider = flag.Provider
	}
	e, err := ps.Endpoint(c.Provider)
	if err != nil {
		return Choice{}, err
	}
	switch {
	case flag.Model != "":
		c.Model = flag.Model
	case session != nil && norm(session.Provider) == c.Provider && session.Model != "":
		c.Model = session.Model
	case norm(saved.Provider) == c.Provider && saved.Model != "":
		c.Model = saved.Model
	case len(e.Models) > 0:
		c.Model = e.Models[0]
	case c.Provider == DefaultProvider:
		return Choice{}, errors.New("no model: pass --model, set LOOPDESK_MODEL, or choose one in the window's Settings")
	default:
		return Choice{}, fmt.Errorf("no model for provider %q: pass --model, or list its models in %s", c.Provider, ps.Path)
	}
	return c, nil
}

// KeyEnvNames lists OPENAI_API_KEY and every api_key_env that providers.json names, for
// main to take out of the environment before anything starts, so no child process (a
// shell command, an MCP server, a hook) can read a key. It is best effort: a file that
// cannot be read names nothing here, and loading it later says why.
func KeyEnvNames() []string {
	names := []string{"OPENAI_API_KEY"}
	path, err := ProvidersPath()
	if err != nil {
		return names
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return names
	}
	var raw struct {
		Providers []struct {
			APIKeyEnv string `json:"api_key_env"`
		} `json:"providers"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return names
	}
	for _, p := range raw.Providers {
		if envName.MatchString(p.APIKeyEnv) && !slices.Contains(names, p.APIKeyEnv) {
			names = append(names, p.APIKeyEnv)
		}
	}
	return names
}
