package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzProvidersFile feeds arbitrary bytes to providers.json's parser. A file it accepts is
// valid, saves, and reads back the same; a key written into the file is never accepted.
func FuzzProvidersFile(f *testing.F) {
	for _, s := range []string{
		`{"providers": [
		  {"name": "claude", "kind": "anthropic", "base_url": "https://api.anthropic.com",
		   "api_key_env": "ANTHROPIC_API_KEY", "models": ["claude-sonnet-4-5", "claude-opus-4-1"], "thinking_budget": 4096},
		  {"name": "deepseek", "kind": "openai", "base_url": "https://api.deepseek.com/v1",
		   "api_key_file": "/home/me/.config/loopdesk/ds.key", "models": ["deepseek-v4"]}]}`,
		`{"providers": []}`,
		`{}`,
		`{"providers": [ {"name": "a", }]}`,
		`{"providers": [{"name": "default", "kind": "openai", "base_url": "http://localhost:11434/v1"}]}`,
		`{"providers": [{"name": "k", "kind": "openai", "base_url": "http://h/v1", "api_key": "sk-secret"}]}`,
		`{"providers": [{"name": "t", "kind": "openai", "base_url": "http://h/v1", "base-url": "x"}]}`,
		`{"providers": [{"name": "m", "kind": "openai", "base_url": "http://h/v1", "models": ["a", "a"]}]}`,
		`{"providers": [{"name": "w", "kind": "openai", "base_url": "http://h/v1", "thinking_budget": "lots"}]}`,
		`{"providers": [{"name": "c", "kind": "anthropic", "base_url": "https://api.anthropic.com/v1"}]}`,
		`{"providers": [{"name": "u", "kind": "openai", "base_url": "https://user:pw@h/v1"}]}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir() // one per worker process; each input saves over the last
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseProviders(data)
		if err != nil {
			return
		}
		if strings.Contains(string(data), `"api_key"`) && hasKeyField(data) {
			t.Fatalf("a file holding a key was accepted: %q", data)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("accepted an invalid file: %v", err)
		}
		saved := filepath.Join(dir, "saved.json")
		if err := SaveProviders(saved, got); err != nil {
			t.Fatalf("an accepted file does not save: %v", err)
		}
		again, err := LoadProviders(saved)
		if err != nil {
			t.Fatalf("a saved file does not read back: %v", err)
		}
		if a, b := normalJSON(t, got), normalJSON(t, again); a != b {
			t.Fatalf("read %s, saved and read back %s", a, b)
		}
	})
}

// hasKeyField reports whether an entry of the file has an "api_key" field, spelled as
// encoding/json would match it.
func hasKeyField(data []byte) bool {
	var raw struct {
		Providers []map[string]json.RawMessage `json:"providers"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return false
	}
	for _, p := range raw.Providers {
		for k := range p {
			if strings.EqualFold(k, "api_key") {
				return true
			}
		}
	}
	return false
}

// normalJSON is f as saved: an absent model list and an empty one are the same file.
func normalJSON(t *testing.T, f ProvidersFile) string {
	for i := range f.Providers {
		if len(f.Providers[i].Models) == 0 {
			f.Providers[i].Models = nil
		}
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
