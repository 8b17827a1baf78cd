package desktop

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
)

// MCP servers in Settings: their health, their tools as the model sees them, their logs, and
// the configuration file (the mcpServers format other tools use), written only by SaveMCPConfig.

// MCPView is the MCP part of Settings.
type MCPView struct {
	Path    string            `json:"path"`
	Config  mcp.Config        `json:"config"`
	Error   string            `json:"error"` // why the file could not be read ("" when fine)
	Servers []mcp.Status      `json:"servers"`
	Names   []mcp.NameMapping `json:"names"`
	// SchemaTokens is, by server, what its tools' schemas add to every request (estimated as
	// run_started's harness_tokens counts them): the cost of a server before any run uses it.
	SchemaTokens map[string]int64 `json:"schema_tokens"`
}

func (c *core) mcpConfig() (mcp.Config, error) {
	if c.mcpPath == "" {
		return mcp.Config{}, nil
	}
	cfg, err := mcp.Load(c.mcpPath)
	if errors.Is(err, fs.ErrNotExist) {
		return mcp.Config{}, nil
	}
	return cfg, err
}

// mcpStatus forwards a server's new status to the page. It must not block (mcp.Options).
func (c *core) mcpStatus(st mcp.Status) {
	c.mu.Lock()
	emit := c.emit
	c.mu.Unlock()
	if emit != nil {
		emit(EventMCPStatus, st)
	}
}

// MCPServers returns the configuration file, every server's status and the tool names the
// model sees.
func (h *Settings) MCPServers() MCPView {
	c := h.c
	v := MCPView{Path: c.mcpPath, Servers: c.st.MCP.Statuses(), Names: c.st.MCP.Names(), SchemaTokens: map[string]int64{}}
	server := map[string]string{}
	for _, n := range v.Names {
		server[n.Name] = n.Server
	}
	for _, t := range c.st.MCP.Tools() {
		v.SchemaTokens[server[t.Name()]] += stack.ToolSchemaTokens(provider.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	cfg, err := c.mcpConfig()
	if err != nil {
		v.Error = err.Error()
	}
	v.Config = cfg
	if v.Config.Servers == nil {
		v.Config.Servers = map[string]mcp.ServerConfig{}
	}
	return v
}

// SaveMCPConfig validates and writes the configuration file, then starts, stops or restarts
// the servers that changed.
func (h *Settings) SaveMCPConfig(cfg mcp.Config) (MCPView, error) {
	c := h.c
	if c.mcpPath == "" {
		return MCPView{}, errors.New("no MCP configuration file: $XDG_CONFIG_HOME is not usable")
	}
	if err := mcp.Save(c.mcpPath, cfg); err != nil {
		return MCPView{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	c.st.MCP.Apply(cfg)
	return h.MCPServers(), nil
}

// ImportClaudeDesktop reads Claude Desktop's configuration file and returns its servers
// merged into the current configuration, unsaved: the person reviews, then saves.
func (h *Settings) ImportClaudeDesktop() (mcp.Config, error) {
	path, err := mcp.ClaudeDesktopPath()
	if err != nil {
		return mcp.Config{}, err
	}
	imported, err := mcp.ImportClaudeDesktop(path)
	if err != nil {
		return mcp.Config{}, err
	}
	cfg, err := h.c.mcpConfig()
	if err != nil {
		return mcp.Config{}, err
	}
	return cfg.Merge(imported), nil
}

// RestartMCPServer restarts one server (its restart budget starts again).
func (h *Settings) RestartMCPServer(name string) error { return h.c.st.MCP.Restart(name) }

// MCPServerLog is what the server wrote on stderr (the last 64 KiB).
func (h *Settings) MCPServerLog(name string) (string, error) {
	log, ok := h.c.st.MCP.Log(name)
	if !ok {
		return "", fmt.Errorf("MCP server %q: %w", name, ErrInvalidInput)
	}
	return log, nil
}
