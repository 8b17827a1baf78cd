package fakeai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Dialect makes a reply stream the way one thinking model's server does, and makes the
// server as strict as that server about what later requests send back.
type Dialect string

const (
	// DialectDeepSeek (DeepSeek V4, thinking on by default): reasoning_content deltas with
	// content null beside them; a later request whose assistant turn with those tool calls
	// lacks the same reasoning_content gets DeepSeek's 400.
	DialectDeepSeek Dialect = "deepseek"
	// DialectKimi (Kimi K2 thinking): reasoning_content, call ids "functions.NAME:N"; a later
	// tool-call turn without reasoning_content gets Moonshot's 400.
	DialectKimi Dialect = "kimi"
	// DialectGemini (Gemini 3 over its OpenAI-compatible endpoint): each call whole in one
	// delta without an index, the first call of the turn carrying
	// extra_content.google.thought_signature; a request to a gemini-3 model whose current
	// turn has a function call without its signature gets Gemini's 400.
	DialectGemini Dialect = "gemini"
	// DialectOpenRouter (OpenRouter in front of a thinking model): reasoning and
	// reasoning_details deltas, the signature last (Claude), or for google/gemini-3 models
	// the text pieces then a reasoning.encrypted item at the same index; a later tool-call
	// turn whose reasoning_details differ from what was assembled (pieces of one type and
	// index joined, the encrypted item on its own) gets the upstream 400 OpenRouter passes on.
	DialectOpenRouter Dialect = "openrouter"
)

// The servers' own error messages (as reported in public issue threads).
const (
	DeepSeekMissingReasoning  = "The `reasoning_content` in the thinking mode must be passed back to the API."
	kimiMissingReasoning      = "thinking is enabled but reasoning_content is missing in assistant tool call message at index %d"
	GeminiMissingSignature    = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
	openRouterMissingThinking = "messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns."
)

// sentTurn is what the server sent with one tool call, to check later requests against.
type sentTurn struct {
	model     string // the model asked: another model's server never sees this turn's rules
	dialect   Dialect
	reasoning string
	signature string // gemini: the call's thought signature ("" for a parallel call without one)
	details   string // openrouter: reasoning_details as sent, merged
}

// thinkingMessage is the part of a request message the strict checks read.
type thinkingMessage struct {
	Role             string          `json:"role"`
	ReasoningContent *string         `json:"reasoning_content"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCalls        []struct {
		ID           string `json:"id"`
		ExtraContent *struct {
			Google *struct {
				ThoughtSignature string `json:"thought_signature"`
			} `json:"google"`
		} `json:"extra_content"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// remember records what a dialect reply sends with its calls.
func (s *Server) remember(r Reply, n int, model string) {
	if r.Dialect == "" || len(r.Calls) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent == nil {
		s.sent = map[string]sentTurn{}
	}
	for i, c := range r.Calls {
		t := sentTurn{model: model, dialect: r.Dialect, reasoning: r.Reasoning}
		if r.Dialect == DialectGemini && i == 0 {
			t.signature = geminiSignature(n)
		}
		if r.Dialect == DialectOpenRouter {
			t.details = openRouterDetails(r.Reasoning, n, model)
		}
		s.sent[dialectCallID(r, c, n, i)] = t
	}
}

// refuseThinking answers 400 the way the dialect's server does when a request drops what a
// thinking turn must carry back; it reports whether it did.
func (s *Server) refuseThinking(w http.ResponseWriter, model string, body []byte) bool {
	s.mu.Lock()
	sent := s.sent
	s.mu.Unlock()
	if len(sent) == 0 {
		return false // no dialect reply yet: nothing to hold a request to (and no second parse)
	}
	var req struct {
		Messages []thinkingMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	lastUser := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			lastUser = i
		}
	}
	for i, m := range req.Messages {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		if msg, d := checkTurn(m, i, sent, model, i > lastUser && strings.HasPrefix(model, "gemini-3")); msg != "" {
			writeDialectError(w, d, msg)
			return true
		}
	}
	return false
}

// checkTurn checks one assistant tool-call message (index i). currentGemini: the message is
// in the current turn of a request to a Gemini 3 model, where every first call needs a
// signature whoever made it.
func checkTurn(m thinkingMessage, i int, sent map[string]sentTurn, model string, currentGemini bool) (string, Dialect) {
	for k, c := range m.ToolCalls {
		sig := ""
		if c.ExtraContent != nil && c.ExtraContent.Google != nil {
			sig = c.ExtraContent.Google.ThoughtSignature
		}
		t, ours := sent[c.ID]
		ours = ours && t.model == model
		switch {
		case currentGemini && k == 0 && sig == "":
			return fmt.Sprintf(GeminiMissingSignature, c.Function.Name, i+1), DialectGemini
		case !ours && k == 0 && m.ReasoningContent == nil && strictAbout(sent, model, DialectDeepSeek):
			return DeepSeekMissingReasoning, DialectDeepSeek // any tool-call turn, whoever made it
		case !ours && k == 0 && m.ReasoningContent == nil && strictAbout(sent, model, DialectKimi):
			return fmt.Sprintf(kimiMissingReasoning, i), DialectKimi
		case !ours:
		case t.dialect == DialectGemini && t.signature != "" && sig != t.signature:
			return fmt.Sprintf(GeminiMissingSignature, c.Function.Name, i+1), DialectGemini
		case t.dialect == DialectDeepSeek && (m.ReasoningContent == nil || *m.ReasoningContent != t.reasoning):
			return DeepSeekMissingReasoning, DialectDeepSeek
		case t.dialect == DialectKimi && (m.ReasoningContent == nil || *m.ReasoningContent == ""):
			return fmt.Sprintf(kimiMissingReasoning, i), DialectKimi
		case t.dialect == DialectOpenRouter && compactJSON(m.ReasoningDetails) != t.details:
			return fmt.Sprintf(openRouterMissingThinking, i), DialectOpenRouter
		}
	}
	return "", ""
}

// strictAbout reports whether model has answered in dialect d on this server: DeepSeek and
// Kimi then refuse every tool-call turn without reasoning_content, not only their own.
func strictAbout(sent map[string]sentTurn, model string, d Dialect) bool {
	for _, t := range sent {
		if t.model == model && t.dialect == d {
			return true
		}
	}
	return false
}

// writeDialectError writes the 400 body each server sends.
func writeDialectError(w http.ResponseWriter, d Dialect, msg string) {
	var body any
	switch d {
	case DialectGemini:
		body = []any{map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}}}
	case DialectKimi:
		body = map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": msg}, "type": "error"}
	case DialectOpenRouter:
		raw, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
		body = map[string]any{"error": map[string]any{"message": "Provider returned error", "code": 400,
			"metadata": map[string]any{"raw": string(raw), "provider_name": "Anthropic"}}}
	default:
		body = map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}}
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// geminiSignature is the signature of response n: opaque base64-looking bytes, different per
// response so a test can tell them apart.
func geminiSignature(n int) string {
	return fmt.Sprintf("EjQKMgEMOdbHJChLX75QUCJjyYlm%04dZmFrZQ==", n)
}

func openRouterSignature(n int) string { return fmt.Sprintf("ErUBCkYIBxgCKkDfake%04dsig", n) }

// openRouterDetails is the reasoning_details of response n as OpenRouter assembles them,
// compacted: the text pieces in one item (with the signature, for Claude), and Gemini 3's
// encrypted item as an item of its own.
func openRouterDetails(reasoning string, n int, model string) string {
	items := []any{map[string]any{"type": "reasoning.text", "text": reasoning,
		"signature": openRouterSignature(n), "format": openRouterClaude, "index": 0}}
	if openRouterFormat(model) == openRouterGemini {
		items = []any{map[string]any{"type": "reasoning.text", "text": reasoning, "format": openRouterGemini, "index": 0},
			openRouterEncrypted(n)}
	}
	b, _ := json.Marshal(items)
	return compactJSON(b)
}

// The reasoning formats OpenRouter names: Claude's, and Gemini's.
const (
	openRouterClaude = "anthropic-claude-v1"
	openRouterGemini = "google-gemini-v1"
)

// openRouterFormat is the reasoning format OpenRouter streams for model.
func openRouterFormat(model string) string {
	if strings.HasPrefix(model, "google/gemini-3") {
		return openRouterGemini
	}
	return openRouterClaude
}

// openRouterEncrypted is Gemini 3's encrypted reasoning item of response n.
func openRouterEncrypted(n int) orEncrypted {
	return orEncrypted{Type: "reasoning.encrypted", Data: fmt.Sprintf("CiQB0e2Kb3fake%04dencrypted", n),
		ID: fmt.Sprintf("tool_fake_%04d", n), Format: openRouterGemini, Index: 0}
}

// compactJSON canonicalises a JSON value for comparison (key order included).
func compactJSON(b []byte) string {
	var v any
	if len(bytes.TrimSpace(b)) == 0 || json.Unmarshal(b, &v) != nil {
		return ""
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(out)
}

// dialectCallID is the id a dialect gives call i of response n.
func dialectCallID(r Reply, c Call, n, i int) string {
	if c.ID != "" {
		return c.ID
	}
	switch r.Dialect {
	case DialectKimi:
		return fmt.Sprintf("functions.%s:%d", c.Name, n*10+i)
	case DialectDeepSeek:
		return fmt.Sprintf("call_%02d_fake%d", i, n)
	}
	return callID(c, n, i)
}
