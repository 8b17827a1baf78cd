package provider

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Wire shapes of the Messages API's stream events.
type antEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage *antUsage `json:"usage"`
	} `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        *struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		Thinking    string  `json:"thinking"`
		Signature   string  `json:"signature"`
		PartialJSON string  `json:"partial_json"`
		StopReason  *string `json:"stop_reason"`
	} `json:"delta"`
	Usage *antUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type antUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
}

// antBlock is one content block being assembled.
type antBlock struct {
	typ   string
	start rawObject // the content_block of content_block_start, every field
	text  strings.Builder
	sig   strings.Builder
	input strings.Builder // tool_use: the input_json_delta fragments
	id    string
	name  string
}

// antAcc folds Messages API events into a Response. One attempt owns it.
type antAcc struct {
	h               Handler
	origin          Origin
	blocks          []*antBlock
	byIndex         map[int]*antBlock
	in, out         int64
	cacheW, cacheR  int64
	stop            string
	stopped         bool // message_stop arrived
	output          bool
	errType, errMsg string
}

// event handles one SSE event; it reports whether the stream is over.
func (a *antAcc) event(typ string, data []byte) (bool, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return false, nil
	}
	var ev antEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return true, err
	}
	if ev.Type == "" {
		ev.Type = typ
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			a.usage(ev.Message.Usage)
		}
	case "content_block_start":
		a.blockStart(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		a.blockDelta(ev.Index, &ev)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != nil {
			a.stop = *ev.Delta.StopReason
		}
		a.usage(ev.Usage)
	case "message_stop":
		a.stopped = true
		return true, nil
	case "error":
		a.errType, a.errMsg = "error", "the stream reported an error"
		if ev.Error != nil {
			a.errType, a.errMsg = ev.Error.Type, ev.Error.Message
		}
		return true, nil
	}
	// ping, content_block_stop and events added later carry nothing to keep.
	return false, nil
}

func (a *antAcc) usage(u *antUsage) {
	if u == nil {
		return
	}
	set := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&a.in, u.InputTokens)
	set(&a.out, u.OutputTokens)
	set(&a.cacheW, u.CacheCreationInputTokens)
	set(&a.cacheR, u.CacheReadInputTokens)
}

func (a *antAcc) blockStart(i int, cb json.RawMessage) {
	b := &antBlock{}
	b.start.mergeJSON(cb, nil)
	var head struct {
		Type, ID, Name, Text, Thinking, Signature string
	}
	_ = json.Unmarshal(cb, &head)
	b.typ, b.id, b.name = head.Type, head.ID, head.Name
	b.sig.WriteString(head.Signature)
	a.blocks = append(a.blocks, b)
	if a.byIndex == nil {
		a.byIndex = map[int]*antBlock{}
	}
	a.byIndex[i] = b
	a.addText(b, head.Text)
	a.addThinking(b, head.Thinking)
	if b.typ == "tool_use" || b.typ == "redacted_thinking" {
		a.output = true
	}
}

func (a *antAcc) blockDelta(i int, ev *antEvent) {
	b := a.byIndex[i]
	if b == nil || ev.Delta == nil {
		return
	}
	d := ev.Delta
	switch d.Type {
	case "text_delta":
		a.addText(b, d.Text)
	case "thinking_delta":
		a.addThinking(b, d.Thinking)
	case "signature_delta":
		b.sig.WriteString(d.Signature)
	case "input_json_delta":
		a.output = true
		b.input.WriteString(d.PartialJSON)
	}
}

// addText and addThinking take only their own block type's text: the turn keeps a text block's
// text as text and a thinking block's as reasoning and no other block's, so a delta shown from
// any other block would be text the person saw that the turn then lost.
func (a *antAcc) addText(b *antBlock, s string) {
	if b.typ == "text" {
		emit(&a.output, &b.text, s, a.h.OnText)
	}
}

func (a *antAcc) addThinking(b *antBlock, s string) {
	if b.typ == "thinking" {
		emit(&a.output, &b.text, s, a.h.OnReasoning)
	}
}

// response builds the Response: text and thinking joined for the row, tool_use blocks as
// calls (only when the message stopped cleanly), and Raw, the assistant message as the
// Messages API takes it back.
func (a *antAcc) response() Response {
	r := Response{Status: StatusOK, FinishReason: a.stop, Origin: a.origin,
		Usage: Usage{InputTokens: a.in + a.cacheW + a.cacheR, OutputTokens: a.out,
			CacheReadTokens: a.cacheR, CacheWriteTokens: a.cacheW}}
	r.Status = finishStatus(anthropicStop, a.stop, a.hasCalls())
	if a.errMsg != "" || !a.stopped {
		r.Status = StatusProviderError
	}
	var text, thinking strings.Builder
	var calls []ToolCall
	for _, b := range a.blocks {
		switch b.typ {
		case "text":
			text.WriteString(b.text.String())
		case "thinking":
			thinking.WriteString(b.text.String())
		case "tool_use":
			args := strings.TrimSpace(b.input.String())
			if args == "" {
				args = "{}"
			}
			calls = append(calls, ToolCall{ID: b.id, Name: b.name, Arguments: args})
		}
	}
	r.Text, r.Reasoning = text.String(), thinking.String()
	for _, tc := range calls {
		if r.Status == StatusOK && tc.ID != "" && tc.Name != "" && isJSONObject(tc.Arguments) {
			r.ToolCalls = append(r.ToolCalls, tc)
		} else {
			r.InvalidToolCalls = append(r.InvalidToolCalls, tc)
		}
	}
	r.Raw = a.raw(r.Status == StatusOK)
	return r
}

func (a *antAcc) hasCalls() bool {
	for _, b := range a.blocks {
		if b.typ == "tool_use" {
			return true
		}
	}
	return false
}

// Fields each block type's raw form writes itself.
var antWritten = map[string]map[string]bool{
	"text":     {"type": true, "text": true},
	"thinking": {"type": true, "thinking": true, "signature": true},
	"tool_use": {"type": true, "id": true, "name": true, "input": true},
}

// raw is the assistant message: {"role":"assistant","content":[blocks as received]}. The
// tool_use blocks of a turn that did not end ok are left out: they never run, and a tool_use
// without its result would make the next request invalid.
func (a *antAcc) raw(withCalls bool) json.RawMessage {
	var w bytes.Buffer
	w.WriteString(`{"role":"assistant","content":[`)
	n := 0
	for _, b := range a.blocks {
		if (b.typ == "tool_use" && !withCalls) || (b.typ == "text" && b.text.Len() == 0) {
			continue // the API refuses an empty text block when it comes back
		}
		if n > 0 {
			w.WriteByte(',')
		}
		n++
		w.WriteString(`{"type":`)
		writeString(&w, b.typ)
		switch b.typ {
		case "text":
			w.WriteString(`,"text":`)
			writeString(&w, b.text.String())
		case "thinking":
			w.WriteString(`,"thinking":`)
			writeString(&w, b.text.String())
			w.WriteString(`,"signature":`)
			writeString(&w, b.sig.String())
		case "tool_use":
			w.WriteString(`,"id":`)
			writeString(&w, b.id)
			w.WriteString(`,"name":`)
			writeString(&w, b.name)
			w.WriteString(`,"input":`)
			w.WriteString(b.inputObject())
		}
		skip := antWritten[b.typ]
		if skip == nil && b.input.Len() > 0 {
			// A block of another kind that streamed its input (server_tool_use, which a
			// paused turn sends back): the input as streamed, not the start's empty one —
			// unless it is not an object, which would make every later request unreadable.
			w.WriteString(`,"input":`)
			w.WriteString(b.inputObject())
			skip = map[string]bool{"type": true, "input": true}
		} else if skip == nil {
			skip = map[string]bool{"type": true}
		}
		b.start.writeFields(&w, false, skip)
		w.WriteByte('}')
	}
	w.WriteString(`]}`)
	return w.Bytes()
}

// inputObject is the block's streamed input as the raw turn sends it back: {} unless it is a
// JSON object.
func (b *antBlock) inputObject() string {
	if in := strings.TrimSpace(b.input.String()); isJSONObject(in) {
		return in
	}
	return "{}"
}
