package fakeai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The thinking parameters of OpenAI-compatible servers, refused when malformed the way each
// server does (a 400 in its own error shape), so a client that sends a wrong value fails here
// as it would there. What a well-formed request asked for is in Requests() for tests to read.

// thinkingParams are the fields servers read a thinking budget from.
type thinkingParams struct {
	ReasoningEffort json.RawMessage `json:"reasoning_effort"`
	Reasoning       json.RawMessage `json:"reasoning"`
	Thinking        json.RawMessage `json:"thinking"`
	ExtraBody       *struct {
		Google *struct {
			ThinkingConfig *struct {
				ThinkingBudget json.RawMessage `json:"thinking_budget"`
				ThinkingLevel  json.RawMessage `json:"thinking_level"`
			} `json:"thinking_config"`
		} `json:"google"`
	} `json:"extra_body"`
}

// efforts are the reasoning_effort values OpenAI documents (DeepSeek and Gemini take the same).
var efforts = map[string]bool{"none": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true}

// refuseThinkingParams answers 400 for a malformed thinking parameter; it reports whether it did.
func refuseThinkingParams(w http.ResponseWriter, model string, p thinkingParams) bool {
	if msg := effortError(p.ReasoningEffort); msg != "" {
		writeParamError(w, msg, "reasoning_effort")
		return true
	}
	if msg := openRouterReasoningError(p.Reasoning); msg != "" {
		body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": 400}})
		writeRaw(w, body)
		return true
	}
	if msg := deepSeekThinkingError(p.Thinking); msg != "" {
		writeParamError(w, msg, "thinking")
		return true
	}
	if msg := geminiThinkingError(p, model); msg != "" {
		writeDialectError(w, DialectGemini, msg)
		return true
	}
	return false
}

func effortError(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var v string
	if json.Unmarshal(raw, &v) != nil || !efforts[v] {
		return fmt.Sprintf("Invalid value: %s. Supported values are: 'low', 'medium', and 'high'.", strings.ReplaceAll(string(raw), `"`, "'"))
	}
	return ""
}

// openRouterReasoningError: "reasoning" is an object with one of effort or max_tokens (a
// positive integer).
func openRouterReasoningError(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var r struct {
		Effort    *string          `json:"effort"`
		MaxTokens *json.RawMessage `json:"max_tokens"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "Invalid request: reasoning must be an object"
	}
	if r.Effort != nil && r.MaxTokens != nil {
		return `Invalid request: only one of "reasoning.effort" and "reasoning.max_tokens" can be specified`
	}
	if r.MaxTokens != nil {
		var n int
		if json.Unmarshal(*r.MaxTokens, &n) != nil || n <= 0 {
			return "Invalid request: reasoning.max_tokens must be a positive integer"
		}
	}
	if r.Effort != nil && !efforts[*r.Effort] {
		return "Invalid request: reasoning.effort must be one of none, minimal, low, medium, high, xhigh"
	}
	return ""
}

// deepSeekThinkingError: "thinking" is {"type": "enabled"|"disabled"}.
func deepSeekThinkingError(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var t struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &t) != nil || (t.Type != "enabled" && t.Type != "disabled") {
		return fmt.Sprintf("Invalid value for thinking.type: %s; expected 'enabled' or 'disabled'", string(raw))
	}
	return ""
}

// geminiThinkingError: a thinking_budget is an integer in the model's range (-1: dynamic),
// and neither it nor thinking_level comes with reasoning_effort (Google: they overlap, and
// cannot be used together).
func geminiThinkingError(p thinkingParams, model string) string {
	if p.ExtraBody == nil || p.ExtraBody.Google == nil || p.ExtraBody.Google.ThinkingConfig == nil {
		return ""
	}
	tc := p.ExtraBody.Google.ThinkingConfig
	if p.ReasoningEffort != nil && (tc.ThinkingBudget != nil || tc.ThinkingLevel != nil) {
		return "reasoning_effort and thinking_config cannot both be set; use one of them"
	}
	if tc.ThinkingBudget == nil {
		return ""
	}
	lo, hi := 0, 24576 // Gemini 2.5 Flash
	if strings.Contains(model, "pro") {
		lo, hi = 128, 32768
	}
	var n int
	if json.Unmarshal(tc.ThinkingBudget, &n) != nil || (n != -1 && (n < lo || n > hi)) {
		return fmt.Sprintf("Unable to submit request because thinking_budget is out of range; supported values are integers from %d to %d.", lo, hi)
	}
	return ""
}

// writeParamError writes OpenAI's error for an invalid parameter value.
func writeParamError(w http.ResponseWriter, msg, param string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": param, "code": "invalid_value"}})
	writeRaw(w, body)
}

func writeRaw(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}
