package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loopdesk/loopdesk/backend/configfile"
)

// Kind is a provider's wire format.
type Kind string

// Provider kinds: any OpenAI-compatible Chat Completions endpoint, or Anthropic's Messages API.
const (
	KindOpenAI    Kind = "openai"
	KindAnthropic Kind = "anthropic"
)

// MinThinkingBudget is the smallest thinking budget in tokens the kind's API accepts
// (Anthropic's budget_tokens: 1024); 0 when it sets none (OpenAI-compatible servers take a
// level or their own field, docs/providers.md).
func (k Kind) MinThinkingBudget() int {
	if k == KindAnthropic {
		return 1024
	}
	return 0
}

// DefaultProvider names the endpoint configured the older way (OPENAI_BASE_URL,
// OPENAI_API_KEY, LOOPDESK_MODEL, the window's saved endpoint and key file). The name is
// reserved: providers.json cannot define it.
const DefaultProvider = "default"

// Provider is one entry of providers.json, exactly as the file spells it. The key is never
// a field: it comes from the environment variable APIKeyEnv or the file APIKeyFile (mode
// 0600), read only when a client is made.
type Provider struct {
	Name       string   `json:"name"`
	Kind       Kind     `json:"kind"`
	BaseURL    string   `json:"base_url"` // for anthropic the API root without /v1
	APIKeyEnv  string   `json:"api_key_env,omitempty"`
	APIKeyFile string   `json:"api_key_file,omitempty"`
	Models     []string `json:"models"`
	// ThinkingBudget is the default extended-thinking budget in tokens (0: off).
	ThinkingBudget int `json:"thinking_budget,omitempty"`
}

// ProvidersFile is $XDG_CONFIG_HOME/loopdesk/providers.json.
type ProvidersFile struct {
	Providers []Provider `json:"providers"`
}

// ProvidersPath is $XDG_CONFIG_HOME/loopdesk/providers.json.
func ProvidersPath() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "providers.json"), nil
}

// LoadProviders reads and validates the file at path. A missing file is no providers (only
// the default one exists then). Every error names the file and, where it applies, the entry.
func LoadProviders(path string) (ProvidersFile, error) {
	f, err := configfile.Read(path, "providers file", parseProviders)
	if errors.Is(err, fs.ErrNotExist) {
		return ProvidersFile{Providers: []Provider{}}, nil
	}
	return f, err
}

// parseProviders is strict: an unknown field is a typo the person should hear about (a
// "base-url" silently ignored would send requests elsewhere), and a key in the file is refused.
func parseProviders(data []byte) (ProvidersFile, error) {
	var raw struct {
		Providers []json.RawMessage `json:"providers"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return ProvidersFile{}, configfile.DescribeJSONError(data, err)
	}
	out := ProvidersFile{Providers: make([]Provider, 0, len(raw.Providers))}
	for i, body := range raw.Providers {
		var p Provider
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return ProvidersFile{}, fmt.Errorf("%s: %w", entryName(i, body), fieldError(body, err))
		}
		out.Providers = append(out.Providers, p)
	}
	return out, out.Validate()
}

// entryName names entry i by its name when it has one, for errors about an entry that
// did not decode.
func entryName(i int, body []byte) string {
	var n struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(body, &n) == nil && n.Name != "" {
		return fmt.Sprintf("provider %q", n.Name)
	}
	return fmt.Sprintf("provider #%d", i+1)
}

func fieldError(body []byte, err error) error {
	msg := err.Error()
	if strings.Contains(msg, `unknown field "api_key"`) {
		return errors.New(`"api_key" is not allowed: the file never holds a key; name an environment variable in "api_key_env" or a 0600 file in "api_key_file"`)
	}
	if strings.HasPrefix(msg, "json: unknown field ") {
		return fmt.Errorf("unknown field %s (want name, kind, base_url, api_key_env, api_key_file, models, thinking_budget)",
			strings.TrimPrefix(msg, "json: unknown field "))
	}
	return configfile.DescribeJSONError(body, err)
}

var (
	providerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	envName      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Validate checks every entry; the error names the first bad one.
func (f ProvidersFile) Validate() error {
	seen := map[string]bool{}
	for i, p := range f.Providers {
		label := fmt.Sprintf("provider %q", p.Name)
		if p.Name == "" {
			label = fmt.Sprintf("provider #%d", i+1)
		}
		if err := p.validate(); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		if seen[p.Name] {
			return fmt.Errorf("%s: the name is used twice", label)
		}
		seen[p.Name] = true
	}
	return nil
}

func (p Provider) validate() error {
	switch {
	case p.Name == "":
		return errors.New(`needs a "name"`)
	case p.Name == DefaultProvider:
		return errors.New(`the name "default" is reserved for the endpoint set in Settings or OPENAI_BASE_URL`)
	case !providerName.MatchString(p.Name):
		return errors.New("the name may hold only letters, digits, '.', '_' and '-' (at most 64)")
	case p.Kind != KindOpenAI && p.Kind != KindAnthropic:
		return fmt.Errorf(`unknown kind %q (want "openai" or "anthropic")`, p.Kind)
	case p.APIKeyEnv != "" && !envName.MatchString(p.APIKeyEnv):
		return fmt.Errorf("api_key_env %q is not an environment variable name", p.APIKeyEnv)
	case p.APIKeyFile != "" && !filepath.IsAbs(expandHome(p.APIKeyFile)):
		return fmt.Errorf("api_key_file %q must be an absolute path (or start with ~/)", p.APIKeyFile)
	case p.ThinkingBudget < 0:
		return fmt.Errorf("thinking_budget must be 0 (off) or more, not %d", p.ThinkingBudget)
	case p.ThinkingBudget > 0 && p.ThinkingBudget < p.Kind.MinThinkingBudget():
		return fmt.Errorf("thinking_budget must be 0 (off) or at least %d for %s, not %d", p.Kind.MinThinkingBudget(), p.Kind, p.ThinkingBudget)
	}
	if err := checkProviderURL(p.Kind, p.BaseURL); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range p.Models {
		if strings.TrimSpace(m) == "" || m != strings.TrimSpace(m) {
			return fmt.Errorf("model %q: a model name cannot be empty or start or end with a space", m)
		}
		if seen[m] {
			return fmt.Errorf("model %q is listed twice", m)
		}
		seen[m] = true
	}
	return nil
}

func checkProviderURL(kind Kind, base string) error {
	u, err := url.Parse(base)
	if base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base_url %q is not an http(s) URL", base)
	}
	if u.User != nil {
		return errors.New("base_url must not carry credentials: use api_key_env or api_key_file")
	}
	if kind == KindAnthropic && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		return fmt.Errorf("base_url %q: for anthropic give the API root without /v1, e.g. https://api.anthropic.com", base)
	}
	return nil
}

func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// Find returns the entry named name.
func (f ProvidersFile) Find(name string) (Provider, bool) {
	for _, p := range f.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// SaveProviders validates f and writes it to path atomically, mode 0600, the folder 0700.
// Nothing is written when f is invalid.
func SaveProviders(path string, f ProvidersFile) error {
	if f.Providers == nil {
		f.Providers = []Provider{}
	}
	for i := range f.Providers {
		if f.Providers[i].Models == nil {
			f.Providers[i].Models = []string{}
		}
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("save providers file %s: %w", path, err)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err == nil {
		err = configfile.WritePrivate(path, ".providers-*.json", append(data, '\n'))
	}
	if err != nil {
		return fmt.Errorf("save providers file %s: %w", path, err)
	}
	return nil
}
