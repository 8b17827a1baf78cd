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

// MeasuredHarness is h counted the way the provider counts, when the run's first request
// carried no history: the rows a session holds up to its first answer are that run's, its
// prompt the only message besides Loopdesk's own notes, and the answer's usage says what the
// request weighed. Loopdesk's share is then that weight less the estimate of the person's
// message, and no longer estimated. Otherwise (a later run, a usage the provider did not
// report, an answer not stored yet) h is returned as it was. first are the session's first
// rows, oldest first.
func MeasuredHarness(h *core.HarnessTokens, runID string, first []store.Chunk) *core.HarnessTokens {
	if h == nil {
		return nil
	}
	prompt, prompts := "", 0
	for _, c := range first {
		if c.RunID != runID {
			return h // history from an earlier run
		}
		switch c.Kind {
		case store.KindUser:
			var p store.UserPayload
			if json.Unmarshal(c.Payload, &p) != nil {
				return h
			}
			prompt, prompts = p.Text, prompts+1
		case store.KindAssistant:
			var p store.AssistantPayload
			if json.Unmarshal(c.Payload, &p) != nil || p.Usage == nil || p.Usage.Unreported || prompts != 1 {
				return h
			}
			total := p.Usage.InputTokens - core.EstimateMessage(prompt)
			if total <= 0 {
				return h
			}
			m := *h
			m.Total, m.Estimated = total, false
			return &m
		}
	}
	return h
}
