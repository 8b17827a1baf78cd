package acp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/stack"
)

// mcpSettle bounds how long session/new waits for the client's servers to be ready or
// failed before it answers (a failing server never blocks a session; its health says why).
const mcpSettle = 30 * time.Second

// stackFor is the stack a new or loaded session runs on. Without client MCP servers it is the
// shared one. With them, it is a stack of the session's own whose MCP manager runs the
// configured servers and the client's (a client's server of the same name replaces the
// configured one), so they are that session's alone; own says the caller must close it.
func (a *Agent) stackFor(ctx context.Context, servers []sdk.McpServer) (st *stack.Stack, own bool, err error) {
	if len(servers) == 0 {
		return a.cfg.Stack, false, nil
	}
	add, err := mcpConfig(servers)
	if err != nil {
		return nil, false, err
	}
	if err := add.Validate(); err != nil {
		return nil, false, invalidParams("mcpServers: %v", err)
	}
	if a.cfg.NewStack == nil {
		return nil, false, invalidParams("mcpServers: this agent cannot start MCP servers")
	}
	st, err = a.cfg.NewStack(a.cfg.MCP.Merge(add))
	if err != nil {
		return nil, false, fmt.Errorf("start the session's MCP servers: %w", err)
	}
	if st.MCP != nil {
		wctx, cancel := context.WithTimeout(ctx, mcpSettle)
		defer cancel()
		_ = st.MCP.WaitSettled(wctx) // a server still starting joins later runs once it is ready
	}
	return st, true, nil
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
