package acp

import (
	"context"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/loopdesk/loopdesk/backend/mcp"
)

// mcpSettle bounds how long session/new waits for the client's servers to be ready or
// failed before it answers (a failing server never blocks a session; its health says why).
const mcpSettle = 30 * time.Second

// addMCP adds the client's MCP servers to the process's manager, over the configured ones.
// They then stay for the whole connection: the stack's tool set is per process, so every
// session of this connection sees them (docs/acp.md).
func (a *Agent) addMCP(ctx context.Context, servers []sdk.McpServer) error {
	if len(servers) == 0 {
		return nil
	}
	add, err := mcpConfig(servers)
	if err != nil {
		return err
	}
	if err := add.Validate(); err != nil {
		return invalidParams("mcpServers: %v", err)
	}
	m := a.cfg.Stack.MCP
	if m == nil {
		return invalidParams("mcpServers: this agent was started without MCP")
	}
	a.mu.Lock()
	a.clientMC = a.clientMC.Merge(add)
	all := a.cfg.MCP.Merge(a.clientMC)
	a.mu.Unlock()
	m.Apply(all)
	wctx, cancel := context.WithTimeout(ctx, mcpSettle)
	defer cancel()
	_ = m.WaitSettled(wctx) // a server still starting joins later runs once it is ready
	return nil
}

// mcpConfig converts ACP's server list into the mcpServers format the manager reads.
func mcpConfig(servers []sdk.McpServer) (mcp.Config, error) {
	cfg := mcp.Config{Servers: map[string]mcp.ServerConfig{}}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			cfg.Servers[s.Stdio.Name] = mcp.ServerConfig{Command: s.Stdio.Command, Args: s.Stdio.Args, Env: env}
		case s.Http != nil:
			cfg.Servers[s.Http.Name] = mcp.ServerConfig{Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			cfg.Servers[s.Sse.Name] = mcp.ServerConfig{Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			return mcp.Config{}, invalidParams("mcpServers: only stdio, http and sse servers are supported")
		}
	}
	return cfg, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}
