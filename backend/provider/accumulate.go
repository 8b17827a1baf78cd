package provider

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Wire shapes of a streamed chunk. Pointers tell a missing field from an
// empty one; unknown fields (llama.cpp's timings, ...) are ignored.
type wireChunk struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int        `json:"index"`
	Delta        *wireDelta `json:"delta"`
	Message      *wireDelta `json:"message"` // non-streamed completions
	FinishReason *string    `json:"finish_reason"`
}

type wireDelta struct {
	Content          json.RawMessage `json:"content"` // a string, or (Mistral) an array of parts
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	Refusal          *string         `json:"refusal"`
	ToolCalls        []wireToolCall  `json:"tool_calls"`
}

type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // a string; some servers send an object
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens *int64 `json:"prompt_cache_hit_tokens"` // DeepSeek
}

type callAcc struct {
	id, name string
	args     strings.Builder
}

// accumulator folds stream chunks into a Response. It is not safe for
// concurrent use; one Stream attempt owns it.
type accumulator struct {
	h         Handler
	text      strings.Builder
	reasoning strings.Builder
	refusal   strings.Builder
	calls     []*callAcc
	byIndex   map[int]*callAcc
	usage     Usage
	finish    string
	finished  bool   // a finish_reason arrived
	sawDone   bool   // data: [DONE] arrived
	output    bool   // any text, reasoning or tool delta arrived
	streamErr string // the server's message from an error object or event
	errCode   string
}

// event handles one SSE event; it reports whether the stream is over.
func (a *accumulator) event(typ string, data []byte) (stop bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return false, nil
	}
	if bytes.Equal(data, []byte("[DONE]")) {
		a.sawDone = true
		return true, nil
	}
	if typ == "error" {
		msg, code := errorObjectMessage(data)
		var w wireChunk
		if json.Unmarshal(data, &w) == nil {
			if m, c := errorObjectMessage(w.Error); m != "" {
				msg, code = m, c
			}
		}
		a.streamErr, a.errCode = msg, code
		return true, nil
	}
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return true, err
	}
	if m, code := errorObjectMessage(c.Error); m != "" {
		a.streamErr, a.errCode = m, code
		return true, nil
	}
	a.chunk(&c)
	return false, nil
}

func (a *accumulator) chunk(c *wireChunk) {
	if c.Usage != nil {
		a.usage = Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
		switch {
		case c.Usage.PromptTokensDetails != nil:
			a.usage.CachedTokens = c.Usage.PromptTokensDetails.CachedTokens
		case c.Usage.PromptCacheHitTokens != nil:
			a.usage.CachedTokens = *c.Usage.PromptCacheHitTokens
		}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // one answer is asked for; ignore any other
		}
		d := ch.Delta
		if d == nil {
			d = ch.Message
		}
		if d != nil {
			a.delta(d)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
			a.finished = true
		}
	}
}

func (a *accumulator) delta(d *wireDelta) {
	if r := d.ReasoningContent; r != nil && *r != "" {
		a.addReasoning(*r)
	} else if r := d.Reasoning; r != nil && *r != "" {
		a.addReasoning(*r)
	}
	if len(d.Content) > 0 && d.Content[0] == '"' {
		if s, ok := jsonString(d.Content); ok && s != "" {
			a.addText(s)
		}
	} else if len(d.Content) > 0 && d.Content[0] == '[' {
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Thinking []struct {
				Text string `json:"text"`
			} `json:"thinking"`
		}
		if json.Unmarshal(d.Content, &parts) == nil {
			for _, p := range parts {
				for _, t := range p.Thinking {
					a.addReasoning(t.Text)
				}
				if p.Text != "" {
					a.addText(p.Text)
				}
			}
		}
	}
	if d.Refusal != nil && *d.Refusal != "" {
		a.refusal.WriteString(*d.Refusal)
		a.output = true
	}
	for i := range d.ToolCalls {
		a.toolDelta(&d.ToolCalls[i])
	}
}

func (a *accumulator) addText(s string) {
	a.output = true
	a.text.WriteString(s)
	if a.h.OnText != nil {
		a.h.OnText(s)
	}
}

func (a *accumulator) addReasoning(s string) {
	if s == "" {
		return
	}
	a.output = true
	a.reasoning.WriteString(s)
	if a.h.OnReasoning != nil {
		a.h.OnReasoning(s)
	}
}

// toolDelta merges one tool-call fragment: by index when the server sends
// one, else by id, else into the latest call. An empty id or name never
// overwrites an earlier one.
func (a *accumulator) toolDelta(t *wireToolCall) {
	a.output = true
	var c *callAcc
	switch {
	case t.Index != nil:
		c = a.byIndex[*t.Index]
		if c != nil && t.ID != "" && c.id != "" && c.id != t.ID {
			c = nil // a server reusing one index for parallel calls
		}
		if c == nil {
			c = a.newCall()
			if a.byIndex == nil {
				a.byIndex = map[int]*callAcc{}
			}
			a.byIndex[*t.Index] = c
		}
	case t.ID != "":
		for _, old := range a.calls {
			if old.id == t.ID {
				c = old
				break
			}
		}
		if c == nil {
			c = a.newCall()
		}
	case len(a.calls) > 0:
		c = a.calls[len(a.calls)-1]
	default:
		c = a.newCall()
	}
	if c.id == "" && t.ID != "" {
		c.id = t.ID
	}
	if c.name == "" && t.Function.Name != "" {
		c.name = t.Function.Name
	}
	if args := t.Function.Arguments; len(args) > 0 {
		switch args[0] {
		case '"':
			if s, ok := jsonString(args); ok {
				c.args.WriteString(s)
			}
		case 'n': // null
		default: // a whole JSON object instead of a string
			c.args.Write(args)
		}
	}
}

func (a *accumulator) newCall() *callAcc {
	c := &callAcc{}
	a.calls = append(a.calls, c)
	return c
}

// response builds the final Response. Tool calls go to ToolCalls only when
// they are complete (the turn ended ok) and their arguments are a JSON object.
func (a *accumulator) response() Response {
	r := Response{
		Text:         a.text.String(),
		Reasoning:    a.reasoning.String(),
		FinishReason: a.finish,
		Usage:        a.usage,
		Status:       StatusOK,
	}
	switch a.finish {
	case "length":
		r.Status = StatusTruncated
	case "content_filter":
		r.Status = StatusRefused
	case "error":
		r.Status = StatusProviderError
	}
	seen := map[string]bool{}
	var valid []ToolCall
	for _, c := range a.calls {
		tc := ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()}
		if tc.ID == "" || seen[tc.ID] {
			tc.ID = newCallID()
		}
		seen[tc.ID] = true
		if strings.TrimSpace(tc.Arguments) == "" {
			tc.Arguments = "{}" // a call without parameters
		}
		if tc.Name != "" && isJSONObject(tc.Arguments) {
			valid = append(valid, tc)
		} else {
			r.InvalidToolCalls = append(r.InvalidToolCalls, tc)
		}
	}
	if r.Status == StatusOK && a.refusal.Len() > 0 && len(valid) == 0 {
		r.Status = StatusRefused
	}
	if r.Status == StatusOK {
		r.ToolCalls = valid
	} else {
		r.InvalidToolCalls = append(valid, r.InvalidToolCalls...)
	}
	return r
}

// jsonString decodes a JSON string literal that the chunk decoder already
// validated. Most deltas have no escapes, and then the bytes between the
// quotes are the text (this is the hot path of a stream).
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// newCallID makes up an id for a call the server sent without one, so each
// tool result can be paired with its call.
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "call_" + hex.EncodeToString(b[:])
}
