// Package config holds what Loopdesk needs to reach model providers that is not
// session data: the endpoint presets, the API key, and the named providers of
// providers.json (providers.go, endpoints.go; docs/providers.md); and the one
// configuration layering every front end resolves (effective.go, settings.go):
// defaults < saved in the window < environment < flags, with the budgets, prices and
// context windows the window saves, the one budget->limits conversion and the one
// run-spec builder.
//
// Keys are deliberately kept out of the SQLite database (which users export,
// copy and attach to bug reports) and out of providers.json. The "default"
// provider's key comes from OPENAI_API_KEY or from a file only the user can read,
// $XDG_CONFIG_HOME/loopdesk/api_key (mode 0600); every other provider names an
// environment variable (api_key_env) or a 0600 file (api_key_file).
//
// Contract: LoadProviders never writes; SaveProviders validates first and writes
// nothing invalid; a providers.json key is read only by Provider.Key (through
// Providers.Endpoint, when a client is made or a screen asks whether it is there),
// and ProviderInfo (what screens and `loopdesk settings` show) never holds one.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/configfile"
)

// Preset is a well-known OpenAI-compatible endpoint the settings screen offers.
type Preset struct {
	Name    string `json:"name"`
	BaseURL string `json:"base_url"`
	// NeedsKey is true for hosted services; local servers ignore the key.
	NeedsKey bool `json:"needs_key"`
}

// Presets lists the endpoints offered on the settings screen, in display order.
func Presets() []Preset {
	return []Preset{
		{Name: "OpenAI", BaseURL: "https://api.openai.com/v1", NeedsKey: true},
		{Name: "Ollama", BaseURL: "http://localhost:11434/v1"},
		{Name: "LM Studio", BaseURL: "http://localhost:1234/v1"},
		{Name: "vLLM", BaseURL: "http://localhost:8000/v1"},
		{Name: "llama.cpp", BaseURL: "http://localhost:8080/v1"},
	}
}

// KeySource says where the key in use came from, so the UI can explain it
// without ever showing the key itself.
type KeySource string

const (
	KeyNone KeySource = ""
	KeyEnv  KeySource = "env"
	KeyFile KeySource = "file"
)

// Keys reads and writes the API key file. Dir is the folder holding it
// (normally ConfigDir()); tests point it at a temp dir.
type Keys struct {
	Dir    string
	Getenv func(string) string
}

// ConfigDir is $XDG_CONFIG_HOME/loopdesk (default ~/.config/loopdesk).
func ConfigDir() (string, error) {
	base, err := configfile.Base()
	if err != nil {
		return "", fmt.Errorf("find the config dir: %w", err)
	}
	return filepath.Join(base, "loopdesk"), nil
}

// Path is the key file's path, for messages; the key itself is never shown.
func (k Keys) Path() string { return filepath.Join(k.Dir, "api_key") }

func (k Keys) getenv(name string) string {
	if k.Getenv != nil {
		return k.Getenv(name)
	}
	return os.Getenv(name)
}

// Key returns the key to use and where it came from. A key saved in settings
// wins over OPENAI_API_KEY: the person typed it on purpose in this app.
func (k Keys) Key() (string, KeySource, error) {
	b, err := os.ReadFile(k.Path())
	switch {
	case err == nil:
		if key := strings.TrimSpace(string(b)); key != "" {
			return key, KeyFile, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", KeyNone, fmt.Errorf("read the API key file %s: %w", k.Path(), err)
	}
	if key := strings.TrimSpace(k.getenv("OPENAI_API_KEY")); key != "" {
		return key, KeyEnv, nil
	}
	return "", KeyNone, nil
}

// SetKey stores key in the key file with mode 0600 (the folder 0700), replacing
// it atomically; an empty key removes the file.
func (k Keys) SetKey(key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		if err := os.Remove(k.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the API key file: %w", err)
		}
		return nil
	}
	return writeKeyFile(k.Path(), key)
}

// ProviderKeyPath is where the window keeps the key typed in Settings for the provider name
// (a name providers.json accepts, so a plain file name): keys/<name>.key beside the default
// key file.
func (k Keys) ProviderKeyPath(name string) string { return filepath.Join(k.Dir, "keys", name+".key") }

// SetProviderKey stores the key of the provider name in ProviderKeyPath, like SetKey: mode
// 0600 in a 0700 folder, replaced atomically; an empty key removes the file.
func (k Keys) SetProviderKey(name, key string) error {
	if !providerName.MatchString(name) || name == DefaultProvider {
		return fmt.Errorf("the key of provider %q: not a provider name", name)
	}
	path := k.ProviderKeyPath(name)
	key = strings.TrimSpace(key)
	if key == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the key file of provider %s: %w", name, err)
		}
		return nil
	}
	if err := writeKeyFile(path, key); err != nil {
		return fmt.Errorf("provider %s: %w", name, err)
	}
	return nil
}

// writeKeyFile writes key on one line to path, mode 0600 (its folder 0700), through a
// temporary file renamed over it: a reader never sees half a key or a readable one.
func writeKeyFile(path, key string) error {
	if strings.ContainsAny(key, "\r\n") {
		return errors.New("the API key must be a single line")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the config dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".api_key-*")
	if err != nil {
		return fmt.Errorf("write the API key file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write the API key file: %w", err)
	}
	if _, err := tmp.WriteString(key + "\n"); err != nil {
		tmp.Close()
		return fmt.Errorf("write the API key file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the API key file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the API key file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the API key file: %w", err)
	}
	return nil
}
