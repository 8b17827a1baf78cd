package fakeai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// chatRequest is the part of a chat completion request the server reads.
type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	thinkingParams // checked by refuseThinkingParams (thinking.go)
}

// lastUserText is the text of the last user message, for the echo reply.
func (c chatRequest) lastUserText() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		m := c.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var parts []struct{ Type, Text string }
		if json.Unmarshal(m.Content, &parts) == nil {
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(p.Text)
			}
			return b.String()
		}
	}
	return ""
}

type chunk struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []choice   `json:"choices"`
	Usage   *usageJSON `json:"usage,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        *delta  `json:"delta,omitempty"`
	Message      *delta  `json:"message,omitempty"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string          `json:"role,omitempty"`
	Content          json.RawMessage `json:"content,omitempty"` // a string, or null (DeepSeek beside reasoning)
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ReasoningDetails []any           `json:"reasoning_details,omitempty"`
	ToolCalls        []toolDelta     `json:"tool_calls,omitempty"`
}

type toolDelta struct {
	Index        *int           `json:"index,omitempty"`
	ID           string         `json:"id,omitempty"`
	Type         string         `json:"type,omitempty"`
	Function     fnDelta        `json:"function"`
	ExtraContent map[string]any `json:"extra_content,omitempty"`
}

// orDetail is one reasoning_details fragment, in OpenRouter's field order.
type orDetail struct {
	Type      string  `json:"type"`
	Text      *string `json:"text,omitempty"`
	Signature *string `json:"signature"`
	Format    string  `json:"format"`
	Index     int     `json:"index"`
}

// orEncrypted is the reasoning.encrypted item OpenRouter streams for Gemini 3 at the same
// index as the text pieces before it: an item of its own, which must come back unmerged.
type orEncrypted struct {
	Type   string `json:"type"`
	Data   string `json:"data"`
	ID     string `json:"id"`
	Format string `json:"format"`
	Index  int    `json:"index"`
}

// jsonText is s as a JSON string.
func jsonText(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

type fnDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type usageJSON struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error(), "invalid_request_error", "")
		return
	}
	if refuseThinkingParams(w, req.Model, req.thinkingParams) || s.tooLong(w, body) || s.refuseThinking(w, req.Model, body) || s.refuseChatImage(w, req) {
		return // a refused request uses no scripted reply
	}
	rep, n := s.nextFor(req.firstUserText())
	if rep == nil {
		echo := Text("You said: " + req.lastUserText())
		rep = &echo
	}
	rep.setHeaders(w)
	s.remember(*rep, n, req.Model)
	delay := s.delay
	if rep.DelayMS > 0 {
		delay = time.Duration(rep.DelayMS) * time.Millisecond
	}
	ctx := r.Context()
	switch rep.Kind {
	case KindHTTPError:
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		if rep.Body == "" {
			writeError(w, rep.Status, fmt.Sprintf("fakeai scripted error %d", rep.Status), "server_error", "")
			return
		}
		ct := "text/plain; charset=utf-8"
		if strings.HasPrefix(strings.TrimSpace(rep.Body), "{") {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, rep.Body)
	case KindHTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body><h1>It works!</h1><p>This is not an API.</p></body></html>\n")
	case KindStall:
		startSSE(w)
		s.pause(ctx, time.Duration(rep.StallMS)*time.Millisecond, true)
	case KindRaw:
		startSSE(w)
		s.raw(ctx, w, rep, delay)
	default:
		model := req.Model
		if model == "" {
			model = "fake-model"
		}
		events := buildChunks(*rep, n, model, req.StreamOptions != nil && req.StreamOptions.IncludeUsage, int64(len(body)))
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(buildCompletion(*rep, n, model, int64(len(body))))
			return
		}
		startSSE(w)
		for i, ev := range events {
			// The role-only chunk (i == 0) is not a delta for StallAt.
			if rep.StallAt > 0 && i == rep.StallAt+1 {
				s.pause(ctx, time.Duration(rep.StallMS)*time.Millisecond, true)
				return
			}
			if i > 0 && !s.pause(ctx, delay, false) {
				return
			}
			if !writeEvent(w, "data: "+ev+"\n\n") {
				return
			}
		}
		writeEvent(w, "data: [DONE]\n\n")
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeEvent(w http.ResponseWriter, ev string) bool {
	if _, err := io.WriteString(w, ev); err != nil {
		return false
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// pause waits d (forever when d == 0 and stall is set), returning false when
// the client left or the server closed first.
func (s *Server) pause(ctx context.Context, d time.Duration, stall bool) bool {
	if d <= 0 && !stall {
		return true
	}
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

// raw writes the scripted SSE body event by event (split after each blank
// line), byte for byte.
func (s *Server) raw(ctx context.Context, w http.ResponseWriter, rep *Reply, delay time.Duration) {
	rest := rep.Raw
	for i := 0; rest != ""; i++ {
		if rep.StallAt > 0 && i == rep.StallAt {
			s.pause(ctx, time.Duration(rep.StallMS)*time.Millisecond, true)
			return
		}
		ev := rest
		if j := strings.Index(rest, "\n\n"); j >= 0 {
			ev = rest[:j+2]
		}
		rest = rest[len(ev):]
		if i > 0 && !s.pause(ctx, delay, false) {
			return
		}
		if !writeEvent(w, ev) {
			return
		}
	}
}

func (r Reply) finish() string {
	switch {
	case r.Finish != "":
		return r.Finish
	case len(r.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (r Reply) usage(bodyLen int64) *usageJSON {
	u := &usageJSON{}
	if r.Usage != nil {
		u.PromptTokens, u.CompletionTokens = r.Usage.PromptTokens, r.Usage.CompletionTokens
		u.PromptTokensDetails.CachedTokens = r.Usage.CachedTokens
	} else {
		// A rough, deterministic estimate: about four bytes a token.
		out := len(r.Text) + len(r.Reasoning)
		for _, c := range r.Calls {
			out += len(c.Name) + len(c.Arguments)
		}
		u.PromptTokens = bodyLen/4 + 1
		u.CompletionTokens = int64(out/4 + 1)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func callID(c Call, n, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", n, i)
}

// buildChunks renders a text/tool reply as the JSON of its stream chunks:
// role-only first, then reasoning, text and tool deltas, the finish chunk,
// and a usage chunk with empty choices when includeUsage.
func buildChunks(r Reply, n int, model string, includeUsage bool, bodyLen int64) []string {
	id := fmt.Sprintf("chatcmpl-fake%d", n)
	mk := func(d *delta, finish *string) chunk {
		return chunk{ID: id, Object: "chat.completion.chunk", Created: 1700000000, Model: model,
			Choices: []choice{{Index: 0, Delta: d, FinishReason: finish}}}
	}
	chunks := []chunk{mk(&delta{Role: "assistant", Content: jsonText("")}, nil)}
	for _, d := range reasoningDeltas(r, n, model) {
		chunks = append(chunks, mk(d, nil))
	}
	for _, p := range splitWords(r.Text) {
		chunks = append(chunks, mk(&delta{Content: jsonText(p)}, nil))
	}
	for _, d := range toolDeltas(r, n) {
		chunks = append(chunks, mk(d, nil))
	}
	fin := r.finish()
	chunks = append(chunks, mk(&delta{}, &fin))
	if includeUsage {
		chunks = append(chunks, chunk{ID: id, Object: "chat.completion.chunk", Created: 1700000000, Model: model,
			Choices: []choice{}, Usage: r.usage(bodyLen)})
	}
	out := make([]string, len(chunks))
	for i, c := range chunks {
		b, _ := json.Marshal(c) // plain structs: cannot fail
		out[i] = string(b)
	}
	return out
}

// reasoningDeltas stream r.Reasoning word by word the way r's dialect does. Through
// OpenRouter, a Claude model's pieces end with a signature piece; a Gemini 3 model's
// (google/gemini-3…) end with a reasoning.encrypted item at the same index.
func reasoningDeltas(r Reply, n int, model string) []*delta {
	var out []*delta
	format := openRouterFormat(model)
	for _, p := range splitWords(r.Reasoning) {
		switch {
		case r.Dialect == DialectDeepSeek:
			out = append(out, &delta{Content: json.RawMessage("null"), ReasoningContent: p})
		case r.Dialect == DialectOpenRouter && format == openRouterGemini: // Gemini's pieces carry no signature
			out = append(out, &delta{Content: jsonText(""), Reasoning: p, ReasoningDetails: []any{map[string]any{
				"type": "reasoning.text", "text": p, "format": format, "index": 0}}})
		case r.Dialect == DialectOpenRouter:
			out = append(out, &delta{Content: jsonText(""), Reasoning: p, ReasoningDetails: []any{orDetail{
				Type: "reasoning.text", Text: &p, Format: format}}})
		default:
			out = append(out, &delta{ReasoningContent: p})
		}
	}
	switch {
	case r.Dialect != DialectOpenRouter || r.Reasoning == "":
	case format == openRouterGemini:
		out = append(out, &delta{Content: jsonText(""), ReasoningDetails: []any{openRouterEncrypted(n)}})
	default:
		sig := openRouterSignature(n)
		out = append(out, &delta{Content: jsonText(""), ReasoningDetails: []any{orDetail{
			Type: "reasoning.text", Signature: &sig, Format: format}}})
	}
	return out
}

// toolDeltas stream r's calls: each call's arguments in pieces, or (Gemini) each call whole
// in one delta without an index, the first with its thought signature.
func toolDeltas(r Reply, n int) []*delta {
	var out []*delta
	for i, c := range r.Calls {
		id := dialectCallID(r, c, n, i)
		if r.Dialect == DialectGemini {
			td := toolDelta{ID: id, Type: "function", Function: fnDelta{Name: c.Name, Arguments: c.Arguments}}
			if i == 0 {
				td.ExtraContent = map[string]any{"google": map[string]any{"thought_signature": geminiSignature(n)}}
			}
			out = append(out, &delta{ToolCalls: []toolDelta{td}})
			continue
		}
		idx := i
		out = append(out, &delta{ToolCalls: []toolDelta{{Index: &idx, ID: id, Type: "function", Function: fnDelta{Name: c.Name}}}})
		for _, p := range splitRunes(c.Arguments, 8) {
			out = append(out, &delta{ToolCalls: []toolDelta{{Index: &idx, Function: fnDelta{Arguments: p}}}})
		}
	}
	return out
}

// buildCompletion renders a text/tool reply as a non-streamed completion.
func buildCompletion(r Reply, n int, model string, bodyLen int64) []byte {
	msg := &delta{Role: "assistant", ReasoningContent: r.Reasoning}
	if r.Text != "" || len(r.Calls) == 0 {
		msg.Content = jsonText(r.Text)
	}
	for i, c := range r.Calls {
		msg.ToolCalls = append(msg.ToolCalls, toolDelta{ID: callID(c, n, i), Type: "function",
			Function: fnDelta{Name: c.Name, Arguments: c.Arguments}})
	}
	fin := r.finish()
	b, _ := json.Marshal(struct {
		chunk
	}{chunk{ID: fmt.Sprintf("chatcmpl-fake%d", n), Object: "chat.completion", Created: 1700000000, Model: model,
		Choices: []choice{{Index: 0, Message: msg, FinishReason: &fin}}, Usage: r.usage(bodyLen)}})
	return b
}
