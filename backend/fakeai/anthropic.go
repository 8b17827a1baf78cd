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

// The fake Messages API (POST /v1/messages): the same queue of scripted replies, streamed as
// Anthropic streams them (message_start, content blocks with their deltas, ping,
// message_delta, message_stop; an error event where a reply asks for one). Requests are held
// to the API's rules where Loopdesk can go wrong (anthropic_check.go): max_tokens present,
// the anthropic-version header, the key in x-api-key, every tool_use answered in the next
// message, thinking blocks with the signature this server gave them, at most four
// cache_control breakpoints. Usage reports cache reads and writes from the breakpoints.
//
// A reply's Reasoning becomes a thinking block (signed), Redacted adds a redacted_thinking
// block, Text a text block, Calls tool_use blocks; Finish overrides stop_reason with any
// value, documented or not ("max_tokens", "refusal", "model_context_window_exceeded",
// "pause_turn", "stop_sequence"); ErrorAfter > 0 cuts the stream with an error event of
// ErrorType after that many events.

func (s *Server) messages(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Header.Get("anthropic-version") == "" {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "There was an error parsing the body of your request: "+err.Error())
		return
	}
	s.mu.Lock()
	msg := req.check(&s.anthropic)
	limit := s.contextLimit
	s.mu.Unlock()
	if msg != "" {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	if s.refuseAnthropicImage(w, &req) {
		return
	}
	if tokens := len(body) / 4; limit > 0 && tokens > limit {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, limit))
		return
	}
	rep, n := s.nextFor(req.firstUserText())
	if rep == nil {
		echo := Text("You said: " + lastAnthropicUserText(&req))
		rep = &echo
	}
	rep.setHeaders(w)
	if s.scriptedOther(w, r, rep) {
		return
	}
	s.mu.Lock()
	input, write, read := req.cacheUsage(&s.anthropic)
	if rep.Redacted {
		if s.anthropic.redacted == nil {
			s.anthropic.redacted = map[string]bool{}
		}
		s.anthropic.redacted[redactedData(n)] = true
	}
	s.mu.Unlock()
	if rep.Usage != nil {
		input, write, read = rep.Usage.PromptTokens, 0, rep.Usage.CachedTokens
	}
	startSSE(w)
	s.streamMessage(r.Context(), w, *rep, n, req.Model, [3]int64{input, write, read})
}

// scriptedOther answers a reply that is not a message (an HTTP error, raw bytes, a stall);
// it reports whether it did.
func (s *Server) scriptedOther(w http.ResponseWriter, r *http.Request, rep *Reply) bool {
	switch rep.Kind {
	case KindHTTPError:
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		if rep.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rep.Status)
			_, _ = io.WriteString(w, rep.Body)
			return true
		}
		typ := map[int]string{429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error"}[rep.Status]
		if typ == "" {
			typ = "api_error"
		}
		writeAnthropicError(w, rep.Status, typ, fmt.Sprintf("fakeai scripted error %d", rep.Status))
		return true
	case KindRaw:
		startSSE(w)
		s.raw(r.Context(), w, rep, s.delay)
		return true
	case KindStall:
		startSSE(w)
		s.pause(r.Context(), time.Duration(rep.StallMS)*time.Millisecond, true)
		return true
	}
	return false
}

// streamMessage writes the events of a scripted reply.
func (s *Server) streamMessage(ctx context.Context, w http.ResponseWriter, r Reply, n int, model string, in [3]int64) {
	events := anthropicEvents(r, n, model, in)
	for i, ev := range events {
		if r.ErrorAfter > 0 && i == r.ErrorAfter {
			typ := r.ErrorType
			if typ == "" {
				typ = "overloaded_error"
			}
			msg := map[string]string{"overloaded_error": "Overloaded", "api_error": "Internal server error"}[typ]
			if msg == "" {
				msg = "fakeai scripted " + typ
			}
			b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
			writeEvent(w, "event: error\ndata: "+string(b)+"\n\n")
			return
		}
		if i > 0 && !s.pause(ctx, s.delay, false) {
			return
		}
		if !writeEvent(w, ev) {
			return
		}
	}
}

// anthropicEvents renders a reply as Messages API stream events, byte for byte in the
// shapes of Anthropic's streaming documentation.
func anthropicEvents(r Reply, n int, model string, in [3]int64) []string {
	var out []string
	ev := func(typ string, v any) {
		b, _ := json.Marshal(v)
		out = append(out, "event: "+typ+"\ndata: "+string(b)+"\n\n")
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake%04d", n), "type": "message", "role": "assistant", "content": []any{},
		"model": model, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in[0], "cache_creation_input_tokens": in[1], "cache_read_input_tokens": in[2], "output_tokens": 1}}})
	idx := 0
	block := func(start map[string]any, deltas []map[string]any) {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": start})
		if idx == 0 {
			out = append(out, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
		}
		for _, d := range deltas {
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": d})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	contentBlocks(r, n, block)
	stop := r.Finish
	if stop == "" {
		stop = "end_turn"
		if len(r.Calls) > 0 {
			stop = "tool_use"
		}
	}
	outTokens := int64(len(r.Text)+len(r.Reasoning))/4 + 1
	for _, c := range r.Calls {
		outTokens += int64(len(c.Arguments))/4 + 1
	}
	if r.Usage != nil {
		outTokens = r.Usage.CompletionTokens
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTokens}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	return out
}

// contentBlocks emits the reply's blocks: thinking (signed), redacted thinking, text, tool_use.
func contentBlocks(r Reply, n int, block func(start map[string]any, deltas []map[string]any)) {
	if r.Reasoning != "" {
		var ds []map[string]any
		for _, p := range splitWords(r.Reasoning) {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": p})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": thinkingSignature(r.Reasoning)})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds)
	}
	if r.Redacted {
		block(map[string]any{"type": "redacted_thinking", "data": redactedData(n)}, nil)
	}
	if r.Text != "" {
		var ds []map[string]any
		for _, p := range splitWords(r.Text) {
			ds = append(ds, map[string]any{"type": "text_delta", "text": p})
		}
		block(map[string]any{"type": "text", "text": ""}, ds)
	}
	for i, c := range r.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake%04d_%d", n, i)
		}
		ds := []map[string]any{{"type": "input_json_delta", "partial_json": ""}}
		for _, p := range splitRunes(c.Arguments, 8) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		block(map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": map[string]any{}}, ds)
	}
}

func redactedData(n int) string {
	return fmt.Sprintf("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP%04d", n)
}

func lastAnthropicUserText(req *messagesRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != "user" {
			continue
		}
		bs, _ := blocks(req.Messages[i].Content)
		var b strings.Builder
		for _, x := range bs {
			b.WriteString(x.Text)
		}
		return b.String()
	}
	return ""
}

// writeAnthropicError writes the API's error object.
func writeAnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg},
		"request_id": "req_fake"})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
