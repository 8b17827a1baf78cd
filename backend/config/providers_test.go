package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode passes through the umask
		t.Fatal(err)
	}
}

func TestLoadProvidersReadsTheFileAsWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "providers.json")
	writeFile(t, path, `{"providers": [
	  {"name": "claude", "kind": "anthropic", "base_url": "https://api.anthropic.com",
	   "api_key_env": "ANTHROPIC_API_KEY", "models": ["claude-sonnet-4-5", "claude-opus-4-1"], "thinking_budget": 4096},
	  {"name": "deepseek", "kind": "openai", "base_url": "https://api.deepseek.com/v1",
	   "api_key_file": "`+filepath.Join(dir, "ds.key")+`", "models": ["deepseek-v4"]}
	]}`, 0o600)
	f, err := LoadProviders(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Providers) != 2 {
		t.Fatalf("providers = %+v", f.Providers)
	}
	c := f.Providers[0]
	if c.Name != "claude" || c.Kind != KindAnthropic || c.BaseURL != "https://api.anthropic.com" ||
		c.APIKeyEnv != "ANTHROPIC_API_KEY" || strings.Join(c.Models, ",") != "claude-sonnet-4-5,claude-opus-4-1" || c.ThinkingBudget != 4096 {
		t.Fatalf("claude = %+v", c)
	}
	// Missing file: no providers, no error (only "default" exists then).
	f, err = LoadProviders(filepath.Join(dir, "none.json"))
	if err != nil || len(f.Providers) != 0 {
		t.Fatalf("missing file: %+v, %v", f, err)
	}
}

// Every bad file is refused with an error naming the file and the entry, and what is wrong.
func TestLoadProvidersRefusesBadFilesNamingFileAndEntry(t *testing.T) {
	ok := `"kind": "openai", "base_url": "http://localhost:8080/v1", "models": ["m"]`
	cases := []struct{ name, body, want string }{
		{"syntax", `{"providers": [ {"name": "a", }]}`, "line 1, column"},
		{"no name", `{"providers": [{` + ok + `}]}`, `provider #1: needs a "name"`},
		{"reserved", `{"providers": [{"name": "default", ` + ok + `}]}`, `provider "default": the name "default" is reserved`},
		{"bad kind", `{"providers": [{"name": "x", "kind": "gemini", "base_url": "http://h/v1"}]}`, `provider "x": unknown kind "gemini"`},
		{"bad url", `{"providers": [{"name": "x", "kind": "openai", "base_url": "localhost:8080"}]}`, `provider "x": base_url "localhost:8080" is not an http(s) URL`},
		{"anthropic v1", `{"providers": [{"name": "c", "kind": "anthropic", "base_url": "https://api.anthropic.com/v1"}]}`, `provider "c": base_url "https://api.anthropic.com/v1": for anthropic give the API root without /v1`},
		{"key in file", `{"providers": [{"name": "k", ` + ok + `, "api_key": "sk-secret"}]}`, `provider "k": "api_key" is not allowed`},
		{"typo", `{"providers": [{"name": "t", ` + ok + `, "base-url": "x"}]}`, `provider "t": unknown field "base-url"`},
		{"twice", `{"providers": [{"name": "d", ` + ok + `}, {"name": "d", ` + ok + `}]}`, `provider "d": the name is used twice`},
		{"env name", `{"providers": [{"name": "e", ` + ok + `, "api_key_env": "MY KEY"}]}`, `provider "e": api_key_env "MY KEY" is not an environment variable name`},
		{"relative key file", `{"providers": [{"name": "f", ` + ok + `, "api_key_file": "key.txt"}]}`, `provider "f": api_key_file "key.txt" must be an absolute path`},
		{"small budget", `{"providers": [{"name": "c", "kind": "anthropic", "base_url": "https://api.anthropic.com", "thinking_budget": 100}]}`, `provider "c": thinking_budget must be 0 (off) or at least 1024`},
		{"model twice", `{"providers": [{"name": "m", "kind": "openai", "base_url": "http://h/v1", "models": ["a", "a"]}]}`, `provider "m": model "a" is listed twice`},
		{"wrong type", `{"providers": [{"name": "w", ` + ok + `, "thinking_budget": "lots"}]}`, `provider "w": field "thinking_budget"`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "providers.json")
			writeFile(t, path, c.body, 0o600)
			_, err := LoadProviders(path)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), "providers file "+path+": ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %q\nwant the file and %q", err, c.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Fatalf("the error repeats the key: %q", err)
			}
		})
	}
}

// The key comes from the named variable, else the named file, which must be private; it is
// never written to providers.json by SaveProviders (the format has no field for it).
func TestProviderKeyFromEnvOrPrivateFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "claude.key")
	p := Provider{Name: "claude", Kind: KindAnthropic, BaseURL: "https://api.anthropic.com",
		APIKeyEnv: "CLAUDE_KEY", APIKeyFile: keyFile}
	env := map[string]string{}
	getenv := func(n string) string { return env[n] }

	if key, from, err := p.Key(getenv); err != nil || key != "" || from.From != "file" || from.Found {
		t.Fatalf("nothing set: %q %+v %v", key, from, err)
	}
	writeFile(t, keyFile, "sk-ant-file\n", 0o644)
	if _, _, err := p.Key(getenv); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a world-readable key file was accepted: %v", err)
	}
	if err := os.Chmod(keyFile, 0o600); err != nil {
		t.Fatal(err)
	}
	if key, from, err := p.Key(getenv); err != nil || key != "sk-ant-file" || from != (KeyOrigin{From: "file", Name: keyFile, Found: true}) {
		t.Fatalf("private file: %q %+v %v", key, from, err)
	}
	env["CLAUDE_KEY"] = "sk-ant-env"
	if key, from, err := p.Key(getenv); err != nil || key != "sk-ant-env" || from != (KeyOrigin{From: "env", Name: "CLAUDE_KEY", Found: true}) {
		t.Fatalf("env set: %q %+v %v", key, from, err)
	}

	path := filepath.Join(dir, "cfg", "providers.json")
	if err := SaveProviders(path, ProvidersFile{Providers: []Provider{p}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "sk-ant") {
		t.Fatalf("providers.json holds a key:\n%s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("providers.json mode = %v, want 0600", fi.Mode().Perm())
	}
	back, err := LoadProviders(path)
	if err != nil || len(back.Providers) != 1 || back.Providers[0].APIKeyFile != keyFile {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func TestSaveProvidersRefusesInvalidAndKeepsTheOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "providers.json")
	good := ProvidersFile{Providers: []Provider{{Name: "local", Kind: KindOpenAI, BaseURL: "http://localhost:11434/v1", Models: []string{"qwen3"}}}}
	if err := SaveProviders(path, good); err != nil {
		t.Fatal(err)
	}
	bad := ProvidersFile{Providers: []Provider{{Name: "x", Kind: "nope", BaseURL: "http://h"}}}
	if err := SaveProviders(path, bad); err == nil || !strings.Contains(err.Error(), `provider "x": unknown kind`) {
		t.Fatalf("bad save: %v", err)
	}
	f, err := LoadProviders(path)
	if err != nil || len(f.Providers) != 1 || f.Providers[0].Name != "local" {
		t.Fatalf("after a refused save: %+v %v", f, err)
	}
}

func TestProvidersEndpointAndInfos(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose.key")
	writeFile(t, loose, "sk-loose", 0o640)
	ps := Providers{
		Default: DefaultEndpoint("http://127.0.0.1:9/v1", "m0", "sk-default", KeyOrigin{From: "env", Name: "OPENAI_API_KEY", Found: true}),
		File: ProvidersFile{Providers: []Provider{
			{Name: "a", Kind: KindOpenAI, BaseURL: "http://a/v1", APIKeyEnv: "A_KEY", Models: []string{"a1"}},
			{Name: "b", Kind: KindAnthropic, BaseURL: "http://b", APIKeyFile: loose},
		}},
		Getenv: func(n string) string { return map[string]string{"A_KEY": "sk-a"}[n] },
	}
	for _, name := range []string{"", "default"} {
		if e, err := ps.Endpoint(name); err != nil || e.BaseURL != "http://127.0.0.1:9/v1" || e.Key != "sk-default" {
			t.Fatalf("Endpoint(%q) = %+v %v", name, e, err)
		}
	}
	if e, err := ps.Endpoint("a"); err != nil || e.Key != "sk-a" || e.Kind != KindOpenAI {
		t.Fatalf("Endpoint(a) = %+v %v", e, err)
	}
	if _, err := ps.Endpoint("zz"); !errors.Is(err, ErrUnknownProvider) || !strings.Contains(err.Error(), "default, a, b") {
		t.Fatalf("Endpoint(zz) error = %v", err)
	}
	infos := ps.Infos()
	if len(infos) != 3 || infos[0].Name != "default" || infos[1].Key != (KeyOrigin{From: "env", Name: "A_KEY", Found: true}) {
		t.Fatalf("infos = %+v", infos)
	}
	if !strings.Contains(infos[2].Error, "chmod 600") {
		t.Fatalf("a loose key file is not reported: %+v", infos[2])
	}
}

func TestChooseProviderAndModel(t *testing.T) {
	ps := Providers{
		Default: DefaultEndpoint("http://d/v1", "m-saved", "", KeyOrigin{From: "none"}),
		File: ProvidersFile{Providers: []Provider{
			{Name: "claude", Kind: KindAnthropic, BaseURL: "https://api.anthropic.com", Models: []string{"sonnet", "opus"}},
			{Name: "bare", Kind: KindOpenAI, BaseURL: "http://b/v1"},
		}},
		Path: "/cfg/providers.json",
	}
	saved := Choice{Provider: "default", Model: "m-saved"}
	cases := []struct {
		name    string
		flag    Choice
		session *Choice
		want    Choice
		err     string
	}{
		{"new session, saved default", Choice{}, nil, Choice{"default", "m-saved"}, ""},
		{"new session, a provider flag takes its first model", Choice{Provider: "claude"}, nil, Choice{"claude", "sonnet"}, ""},
		{"both flags", Choice{Provider: "claude", Model: "opus"}, nil, Choice{"claude", "opus"}, ""},
		{"the session's own", Choice{}, &Choice{"claude", "opus"}, Choice{"claude", "opus"}, ""},
		{"an old session is on default", Choice{}, &Choice{"", "old-model"}, Choice{"default", "old-model"}, ""},
		{"a model flag keeps the session's provider", Choice{Model: "sonnet"}, &Choice{"claude", "opus"}, Choice{"claude", "sonnet"}, ""},
		{"a provider flag away from the session", Choice{Provider: "default"}, &Choice{"claude", "opus"}, Choice{"default", "m-saved"}, ""},
		{"unknown provider", Choice{Provider: "gone"}, nil, Choice{}, `unknown provider "gone"`},
		{"no model anywhere", Choice{Provider: "bare"}, nil, Choice{}, `no model for provider "bare"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ps.Choose(c.flag, c.session, saved)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Choose = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
