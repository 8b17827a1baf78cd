package mcp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadErrorsNameFileAndServer(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", []string{"line 3"}},
		{"no command", `{"mcpServers": {"gh": {"args": ["x"]}}}`, []string{`server "gh"`, `needs "command"`}},
		{"bad type", `{"mcpServers": {"gh": {"type": "carrier-pigeon", "url": "http://x"}}}`, []string{`server "gh"`, "unknown type"}},
		{"bad url", `{"mcpServers": {"web": {"type": "http", "url": "ftp://x"}}}`, []string{`server "web"`, "not an http(s) URL"}},
		{"http without url", `{"mcpServers": {"web": {"type": "http"}}}`, []string{`server "web"`, `needs "url"`}},
		{"wrong field type", `{"mcpServers": {"gh": {"command": "x", "args": "not-a-list"}}}`, []string{`server "gh"`, `"args"`}},
		{"negative timeout", `{"mcpServers": {"gh": {"command": "x", "timeout_s": -1}}}`, []string{`server "gh"`, "timeout_s"}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(c.name, " ", "_")+".json", c.body)
			_, err := Load(p)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append([]string{p}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestLoadFormatsOfOtherTools(t *testing.T) {
	p := writeFile(t, t.TempDir(), "claude_desktop_config.json", `{
	  "globalShortcut": "Ctrl+Space",
	  "mcpServers": {
	    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"A": "1"}, "alwaysAllow": ["read_file"]},
	    "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
	    "cursor": {"url": "http://localhost:8080/mcp"},
	    "old": {"type": "sse", "url": "http://localhost:8081/sse"},
	    "mine": {"command": "srv", "trusted": true, "timeout_s": 5, "disabled": true}
	  }
	}`)
	cfg, err := ImportClaudeDesktop(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"fs": "stdio", "web": "http", "cursor": "http", "old": "sse", "mine": "stdio"}
	for name, tr := range want {
		if got := cfg.Servers[name].Transport(); got != tr {
			t.Errorf("%s: transport %q, want %q", name, got, tr)
		}
	}
	mine := cfg.Servers["mine"]
	if !mine.Trusted || !mine.Disabled || mine.CallTimeout() != 5*time.Second {
		t.Errorf("mine = %+v", mine)
	}
	if cfg.Servers["fs"].CallTimeout() != DefaultCallTimeout {
		t.Errorf("default call timeout = %s", cfg.Servers["fs"].CallTimeout())
	}
}

func TestLoadConfigMergesDefaultAndExtraFiles(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	def, _ := DefaultPath()
	if def != filepath.Join(xdg, "loopdesk", "mcp.json") {
		t.Fatalf("DefaultPath = %s", def)
	}
	// No default file: not an error, no servers.
	if cfg, err := LoadConfig(); err != nil || len(cfg.Servers) != 0 {
		t.Fatalf("LoadConfig without a file = %+v, %v", cfg, err)
	}
	writeFile(t, xdg, "loopdesk/mcp.json", `{"mcpServers": {"a": {"command": "a1"}, "b": {"command": "b1"}}}`)
	extra := writeFile(t, t.TempDir(), "extra.json", `{"mcpServers": {"b": {"command": "b2"}, "c": {"url": "http://h/mcp"}}}`)
	cfg, err := LoadConfig(extra)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers["a"].Command != "a1" || cfg.Servers["b"].Command != "b2" || cfg.Servers["c"].URL == "" {
		t.Fatalf("merged = %+v", cfg.Servers)
	}
	if got := strings.Join(cfg.Names(), ","); got != "a,b,c" {
		t.Fatalf("Names = %s", got)
	}
	missing := filepath.Join(t.TempDir(), "nope.json")
	if _, err := LoadConfig(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing --mcp-config file: %v", err)
	}
}

func TestSaveIsAtomicPrivateAndRoundTrips(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "mcp.json")
	cfg := Config{Servers: map[string]ServerConfig{
		"gh":  {Command: "gh-mcp", Args: []string{"--stdio"}, Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}"}, Trusted: true},
		"web": {Type: "http", URL: "https://example.com/mcp", TimeoutS: 30},
	}}
	if err := Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("saved file mode = %v, %v; want 0600", info.Mode(), err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Servers["gh"].Env["GITHUB_TOKEN"] != "${GITHUB_TOKEN}" || !back.Servers["gh"].Trusted || back.Servers["web"].TimeoutS != 30 {
		t.Fatalf("round trip = %+v", back)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	bad := Config{Servers: map[string]ServerConfig{"x": {}}}
	if err := Save(p, bad); err == nil {
		t.Fatal("Save of an invalid config succeeded")
	}
	if again, _ := Load(p); len(again.Servers) != 2 {
		t.Fatal("a refused Save changed the file")
	}
}
