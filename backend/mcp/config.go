package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/configfile"
)

// Transport names as the config file and `loopdesk mcp list --json` spell them.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// DefaultCallTimeout bounds one tool call when a server sets no timeout_s.
const DefaultCallTimeout = 60 * time.Second

// Config is the `mcpServers` file format that Claude Desktop, Claude Code and
// Cursor use, plus Loopdesk's optional disabled/trusted/timeout_s fields.
// Unknown fields are ignored, so a file written for another tool loads as is.
type Config struct {
	Servers map[string]ServerConfig `json:"mcpServers"`
}

// ServerConfig is one entry of mcpServers. A stdio server has Command (Args,
// Env, Cwd); an HTTP server has Type "http" (or "sse"), URL and Headers.
// Values in Args, Env, URL and Headers may name variables of the app's
// environment as ${VAR} or ${VAR:-default}: that is the only way a variable
// outside the safe base (see doc.go) reaches a server.
type ServerConfig struct {
	Type     string            `json:"type,omitempty"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// Trusted makes the server's readOnlyHint annotations count: only then is
	// a tool read-only for the approval policy.
	Trusted bool `json:"trusted,omitempty"`
	// TimeoutS is the per-call timeout in seconds (0: DefaultCallTimeout).
	TimeoutS int `json:"timeout_s,omitempty"`
}

// Transport is the entry's transport: the explicit type, else stdio when a
// command is given and http when only a URL is.
func (s ServerConfig) Transport() string {
	switch strings.ToLower(s.Type) {
	case "stdio":
		return TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return TransportHTTP
	case "sse":
		return TransportSSE
	case "":
		if s.Command == "" && s.URL != "" {
			return TransportHTTP
		}
		return TransportStdio
	}
	return s.Type
}

// CallTimeout is the bound on one tool call to this server.
func (s ServerConfig) CallTimeout() time.Duration {
	if s.TimeoutS > 0 {
		return time.Duration(s.TimeoutS) * time.Second
	}
	return DefaultCallTimeout
}

// Names lists the configured servers in a stable order (sorted by name).
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Merge returns c with every server of later added, a server of the same
// name in later replacing c's entry as a whole.
func (c Config) Merge(later Config) Config {
	out := Config{Servers: make(map[string]ServerConfig, len(c.Servers)+len(later.Servers))}
	for n, s := range c.Servers {
		out.Servers[n] = s
	}
	for n, s := range later.Servers {
		out.Servers[n] = s
	}
	return out
}

// Validate checks every entry; the error names the first bad server.
func (c Config) Validate() error {
	for _, name := range c.Names() {
		if err := validateServer(name, c.Servers[name]); err != nil {
			return err
		}
	}
	return nil
}

func validateServer(name string, s ServerConfig) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("a server has an empty name")
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("server %q: %s", name, fmt.Sprintf(format, args...))
	}
	if s.TimeoutS < 0 {
		return bad("timeout_s must be 0 or more, not %d", s.TimeoutS)
	}
	switch s.Transport() {
	case TransportStdio:
		if strings.TrimSpace(s.Command) == "" {
			return bad(`needs "command" (stdio) or "url" (http)`)
		}
	case TransportHTTP, TransportSSE:
		if s.URL == "" {
			return bad(`type %q needs "url"`, s.Type)
		}
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("url %q is not an http(s) URL", s.URL)
		}
	default:
		return bad(`unknown type %q (want "stdio", "http" or "sse")`, s.Type)
	}
	return nil
}

// DefaultPath is $XDG_CONFIG_HOME/loopdesk/mcp.json (~/.config/loopdesk/mcp.json).
func DefaultPath() (string, error) {
	dir, err := configfile.Base()
	if err != nil {
		return "", fmt.Errorf("find the MCP config file: %w", err)
	}
	return filepath.Join(dir, "loopdesk", "mcp.json"), nil
}

// LoadConfig reads the default file (when it exists) and then each of paths
// (which must exist), later files adding servers or replacing those of the same
// name. Every error names the file and, where it applies, the server.
func LoadConfig(paths ...string) (Config, error) {
	def, err := DefaultPath()
	if err != nil {
		return Config{}, err
	}
	cfg, err := Load(def)
	if errors.Is(err, fs.ErrNotExist) {
		cfg, err = Config{Servers: map[string]ServerConfig{}}, nil
	}
	if err != nil {
		return Config{}, err
	}
	for _, p := range paths {
		more, err := Load(p)
		if err != nil {
			return Config{}, err
		}
		cfg = cfg.Merge(more)
	}
	return cfg, nil
}

// Load reads one config file. A missing file is an error wrapping
// fs.ErrNotExist; a file without "mcpServers" is an empty config.
func Load(path string) (Config, error) {
	return configfile.Read(path, "MCP config", parseConfig)
}

func parseConfig(data []byte) (Config, error) {
	var raw struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, configfile.DescribeJSONError(data, err)
	}
	cfg := Config{Servers: make(map[string]ServerConfig, len(raw.Servers))}
	for name, body := range raw.Servers {
		var s ServerConfig
		if err := json.Unmarshal(body, &s); err != nil {
			return Config{}, fmt.Errorf("server %q: %w", name, configfile.DescribeJSONError(body, err))
		}
		cfg.Servers[name] = s
	}
	return cfg, cfg.Validate()
}

// Save writes cfg to path atomically (a temporary file renamed over it), mode
// 0600 because env and headers may hold tokens. The app calls it only when a
// person saves in Settings; loading never writes.
func Save(path string, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("save MCP config %s: %w", path, err)
	}
	if cfg.Servers == nil {
		cfg.Servers = map[string]ServerConfig{}
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("save MCP config %s: %w", path, err)
	}
	if err := configfile.WritePrivate(path, ".mcp-*.json", append(data, '\n')); err != nil {
		return fmt.Errorf("save MCP config %s: %w", path, err)
	}
	return nil
}

// ImportClaudeDesktop reads the servers of a Claude Desktop config file
// (claude_desktop_config.json, the same mcpServers format with other top-level
// keys, which are ignored). Merge the result into the current config and Save
// it to keep it.
func ImportClaudeDesktop(path string) (Config, error) {
	cfg, err := Load(path)
	if err != nil {
		return Config{}, fmt.Errorf("import Claude Desktop servers: %w", err)
	}
	return cfg, nil
}

// ClaudeDesktopPath is where Claude Desktop keeps its config on Linux
// ($XDG_CONFIG_HOME/Claude/claude_desktop_config.json).
func ClaudeDesktopPath() (string, error) {
	def, err := DefaultPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(filepath.Dir(def)), "Claude", "claude_desktop_config.json"), nil
}
