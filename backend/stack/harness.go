package stack

import (
	"encoding/json"
	"strings"

	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// HarnessTokens is what Loopdesk itself adds to each request of a run (run_started's
// harness_tokens, loop.Config.Harness): the system prompt less the instruction files in it,
// the instruction files, each tool's schema as the request carries it — built-in tools under
// Tools, an MCP server's ("mcp__SERVER__TOOL") under MCP by server — and the notes the run
// stores. The provider says nothing of a request's parts, so every figure is estimated from
// its text as the meters estimate (core.EstimateTokens).
func HarnessTokens(base string, files []instructions.File, system string, tools []provider.ToolSpec, notes []store.NotePayload) *core.HarnessTokens {
	h := &core.HarnessTokens{MCP: map[string]int64{}, Estimated: true}
	h.Instructions = max(core.EstimateTokens(instructions.Compose(base, files))-core.EstimateTokens(base), 0)
	h.System = max(core.EstimateTokens(system)-h.Instructions, 0)
	for _, t := range tools {
		n := ToolSchemaTokens(t)
		if server, ok := MCPServerOf(t.Name); ok {
			h.MCP[server] += n
		} else {
			h.Tools += n
		}
	}
	for _, n := range notes {
		h.Notes += core.EstimateMessage(n.Text)
	}
	h.Total = h.System + h.Tools + h.Instructions + h.Notes
	for _, n := range h.MCP {
		h.Total += n
	}
	return h
}

// ToolSchemaTokens is one tool's share of a request: its name, description and parameters
// as the OpenAI-compatible wire sends them.
func ToolSchemaTokens(t provider.ToolSpec) int64 {
	params := t.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]any{
		"name": t.Name, "description": t.Description, "parameters": params}})
	return core.EstimateTokens(string(b))
}

// MCPServerOf is the server of an MCP tool's name ("mcp__github__create_issue" → "github").
func MCPServerOf(tool string) (string, bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	return server, ok && server != ""
}
