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
	raw              []byte          // the delta as sent, for Response.Raw
}

// UnmarshalJSON decodes the known fields and keeps the bytes for the fields it does not know.
func (d *wireDelta) UnmarshalJSON(b []byte) error {
	type plain wireDelta
	return decodeKeeping(b, (*plain)(d), &d.raw)
}

// decodeKeeping decodes b into v (a type without this UnmarshalJSON, so that it does not call
// itself) and keeps b in raw once it decoded.
func decodeKeeping[T any](b []byte, v *T, raw *[]byte) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	*raw = b
	return nil
}

type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // a string; some servers send an object
	} `json:"function"`
	raw []byte // the fragment as sent: extra_content and fields not known here
}

// UnmarshalJSON decodes the known fields and keeps the bytes for Response.Raw.
func (t *wireToolCall) UnmarshalJSON(b []byte) error {
	type plain wireToolCall
	return decodeKeeping(b, (*plain)(t), &t.raw)
}

type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"` // OpenRouter
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens *int64 `json:"prompt_cache_hit_tokens"` // DeepSeek
	CachedTokens         *int64 `json:"cached_tokens"`           // Moonshot (Kimi)
}

type callAcc struct {
	id, name string
	args     strings.Builder
	raw      rawObject // every field of the call's fragments (extra_content, ...)
}

// Fields of a delta and of a tool-call fragment that Response.Raw writes itself.
var (
	// annotations (OpenAI's URL citations) is documented as response-only: OpenAI's request
	// schema has no such field on an assistant message.
	skipDeltaRaw = map[string]bool{"role": true, "content": true, "tool_calls": true, "annotations": true}
	skipCallRaw  = map[string]bool{"index": true}
	writtenCall  = map[string]bool{"id": true, "type": true, "function": true}
)

// accumulator folds stream chunks into a Response. It is not safe for
// concurrent use; one Stream attempt owns it.
type accumulator struct {
	h         Handler
	origin    Origin    // what this stream's turn is tagged with
	msg       rawObject // the delta fields Response.Raw keeps beyond content and tool_calls
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
		a.usage = usageOf(c.Usage)
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

// usageOf reads a usage object; prompt_tokens already counts cached tokens on every
// OpenAI-compatible server, so InputTokens is the whole input.
func usageOf(u *wireUsage) Usage {
	out := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	switch {
	case u.PromptTokensDetails != nil && (u.PromptTokensDetails.CachedTokens > 0 || u.PromptCacheHitTokens == nil):
		out.CacheReadTokens = u.PromptTokensDetails.CachedTokens
		out.CacheWriteTokens = u.PromptTokensDetails.CacheWriteTokens
	case u.PromptCacheHitTokens != nil:
		out.CacheReadTokens = *u.PromptCacheHitTokens
	case u.CachedTokens != nil:
		out.CacheReadTokens = *u.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	return out
}

func (a *accumulator) delta(d *wireDelta) {
	if len(d.raw) > 0 {
		a.msg.mergeJSON(d.raw, skipDeltaRaw)
	}
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
	emit(&a.output, &a.reasoning, s, a.h.OnReasoning)
}

// emit adds a piece of streamed text or reasoning to what the turn holds, marks that output
// arrived (no retry after it) and hands the piece to the handler's callback, when it has one.
// An empty piece is no output.
func emit(output *bool, into *strings.Builder, s string, on func(string)) {
	if s == "" {
		return
	}
	*output = true
	into.WriteString(s)
	if on != nil {
		on(s)
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
	if len(t.raw) > 0 {
		c.raw.mergeJSON(t.raw, skipCallRaw)
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
		Origin:       a.origin,
	}
	calls := a.finalCalls()
	r.Status = finishStatus(openAIFinish, a.finish, len(calls) > 0)
	var valid []ToolCall
	for _, tc := range calls {
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
	if r.Status != StatusOK {
		calls = nil // never run, never stored: the next request must not carry them
	}
	r.Raw = a.raw(calls)
	return r
}

// finalCalls gives every call its final id (made up where none or a duplicate came) and
// arguments, in stream order.
func (a *accumulator) finalCalls() []ToolCall {
	seen := map[string]bool{}
	out := make([]ToolCall, len(a.calls))
	for i, c := range a.calls {
		tc := ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()}
		if tc.ID == "" || seen[tc.ID] {
			tc.ID = newCallID()
		}
		seen[tc.ID] = true
		if strings.TrimSpace(tc.Arguments) == "" {
			tc.Arguments = "{}" // a call without parameters
		}
		out[i] = tc
	}
	return out
}

// raw is the assistant message as received: role, content (the text), every other field the
// deltas carried, and the tool calls with every field of their fragments. A call without a
// name is left out: the row cannot keep it either, and a call without its result would make
// the next request invalid.
func (a *accumulator) raw(calls []ToolCall) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"role":"assistant","content":`)
	writeString(&b, a.text.String())
	a.msg.writeFields(&b, false, nil)
	n := 0
	for i, tc := range calls {
		if tc.Name == "" {
			continue
		}
		if n == 0 {
			b.WriteString(`,"tool_calls":[`)
		} else {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`{"id":`)
		writeString(&b, tc.ID)
		b.WriteString(`,"type":"function","function":{"name":`)
		writeString(&b, tc.Name)
		b.WriteString(`,"arguments":`)
		writeString(&b, tc.Arguments)
		b.WriteByte('}')
		a.calls[i].raw.writeFields(&b, false, writtenCall)
		b.WriteByte('}')
	}
	if n > 0 {
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
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
