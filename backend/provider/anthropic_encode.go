package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DefaultMaxTokens is the output budget of an Anthropic request that names none (the
// Messages API requires one); with thinking on, max_tokens is the thinking budget plus this.
const DefaultMaxTokens = 8192

// minThinkingBudget is the smallest budget_tokens the Messages API accepts.
const minThinkingBudget = 1024

// cacheControl marks a cache breakpoint. Anthropic allows four per request; anthropicBody
// places them on the last tool, the system prompt and the last two user messages.
const cacheControl = `"cache_control":{"type":"ephemeral"}`

// CacheMarker is the exact text of a cache breakpoint in an encoded request, so a measure of
// prefix stability can leave it out: the marker is an instruction, not cached content, and
// moving it forward never invalidates what was cached before it.
const CacheMarker = `,` + cacheControl

// anthropicBody writes a Messages API request. Field order puts everything that never changes
// first and the messages last, so each request's bytes extend the previous one's.
func anthropicBody(model string, req Request, o Origin, budget int) (*WireBody, error) {
	if model == "" {
		return nil, errors.New("provider: no model configured")
	}
	if budget > 0 && foreignToolLoop(req.Messages, o) {
		// A tool loop whose last assistant turn came from elsewhere has no thinking block to
		// open it, which the API requires while thinking is on: this request thinks not.
		budget = 0
	}
	units, err := req.Cache.encode(o, req.Messages, anthropicUnits(o))
	if err != nil {
		return nil, err
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	b := &bytes.Buffer{}
	b.WriteString(`{"model":`)
	writeString(b, model)
	if budget > 0 {
		budget = max(budget, minThinkingBudget)
		maxTokens = max(maxTokens, budget+DefaultMaxTokens)
		fmt.Fprintf(b, `,"max_tokens":%d,"stream":true,"thinking":{"type":"enabled","budget_tokens":%d}`, maxTokens, budget)
	} else {
		fmt.Fprintf(b, `,"max_tokens":%d,"stream":true`, maxTokens)
	}
	tools, err := req.Cache.encodeTools(KindAnthropic, req.Tools, anthropicTools.write)
	if err != nil {
		return nil, err
	}
	b.Write(tools)
	anthropicSystem(b, req.System, req.Messages)
	b.WriteString(`,"messages":[`)
	w := &WireBody{parts: make([][]byte, 0, 2*len(units)+2)}
	w.add(b.Bytes())
	addUnits(w, units)
	w.add([]byte(`]}`))
	return w, nil
}

// anthropicSystem writes the system prompt and the system messages as the system parameter
// (the Messages API has no system role), the last block a cache breakpoint.
func anthropicSystem(b *bytes.Buffer, system string, msgs []Message) {
	var texts []string
	if system != "" {
		texts = append(texts, system)
	}
	for _, m := range msgs {
		if m.Role == RoleSystem {
			texts = append(texts, m.Text)
		}
	}
	if len(texts) == 0 {
		return
	}
	b.WriteString(`,"system":[`)
	for k, t := range texts {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":`)
		writeString(b, t)
		markIf(b, k == len(texts)-1)
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// addUnits adds the messages, the last two user messages each with a cache breakpoint on
// their last block: the newest one is where the next request reads the cache up to, the one
// before is where this request finds what the last one cached. The units themselves are never
// changed: a marked one is written as a copy.
func addUnits(w *WireBody, units []unit) {
	marks := 0
	mark := make([]bool, len(units))
	for i := len(units) - 1; i >= 0 && marks < 2; i-- {
		if units[i].user {
			mark[i] = true
			marks++
		}
	}
	for i, u := range units {
		if i > 0 {
			w.add(comma)
		}
		if !mark[i] {
			w.add(u.b)
			continue
		}
		// Every user unit ends with the last block's "}" and then "]}".
		m := make([]byte, 0, len(u.b)+len(CacheMarker))
		m = append(append(append(m, u.b[:len(u.b)-3]...), CacheMarker...), u.b[len(u.b)-3:]...)
		w.add(m)
	}
}

// anthropicTools are the Messages API's tools, the last one marked for the prompt cache.
var anthropicTools = toolFormat{open: "{", params: "input_schema", str: func(b *bytes.Buffer, s string) { writeString(b, s) },
	close: func(last bool) string {
		if last {
			return CacheMarker + "}"
		}
		return "}"
	}}

// foreignToolLoop reports whether the conversation ends in a tool loop (the last assistant
// turn called tools and only their results follow) whose assistant turn another origin made.
func foreignToolLoop(msgs []Message, o Origin) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case RoleTool:
			continue
		case RoleAssistant:
			return len(msgs[i].ToolCalls) > 0 && msgs[i].rawFor(o) == nil
		}
		return false
	}
	return false
}

// anthropicUnits encodes the messages other than system ones: consecutive tool results make
// one user message of tool_result blocks; an assistant turn goes raw to its own origin.
func anthropicUnits(o Origin) encodeFunc {
	return func(msgs []Message, from int) ([]unit, error) {
		var out []unit
		for i := from; i < len(msgs); i++ {
			m := &msgs[i]
			var b bytes.Buffer
			u := unit{from: i, to: i + 1}
			switch m.Role {
			case RoleSystem:
				continue
			case RoleUser:
				u.user = true
				b.WriteString(`{"role":"user","content":[`)
				// Images first, as Anthropic advises; the text block stays last, where a cache
				// breakpoint goes.
				for _, im := range m.Images {
					b.WriteString(`{"type":"image","source":{"type":"base64","media_type":`)
					writeString(&b, im.MediaType)
					b.WriteString(`,"data":`)
					writeString(&b, base64.StdEncoding.EncodeToString(im.Data))
					b.WriteString(`}},`)
				}
				b.WriteString(`{"type":"text","text":`)
				writeString(&b, nonEmpty(m.Text))
				b.WriteString(`}]}`)
			case RoleTool:
				u.user = true
				j := i
				for j < len(msgs) && msgs[j].Role == RoleTool {
					j++
				}
				writeToolResults(&b, msgs[i:j])
				u.to, i = j, j-1
			case RoleAssistant:
				ok, err := writeAssistant(&b, m, o)
				if err != nil {
					return nil, fmt.Errorf("provider: message %d (assistant): %w", i, err)
				}
				if !ok {
					continue // an empty turn: nothing to send
				}
			default:
				return nil, fmt.Errorf("provider: message %d: unknown role %q", i, m.Role)
			}
			u.b = b.Bytes()
			out = append(out, u)
		}
		return out, nil
	}
}

func markIf(b *bytes.Buffer, mark bool) {
	if mark {
		b.WriteString(CacheMarker)
	}
}

// nonEmpty stands in for empty text, which the Messages API refuses in a text block.
func nonEmpty(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

func writeToolResults(b *bytes.Buffer, results []Message) {
	b.WriteString(`{"role":"user","content":[`)
	for k, r := range results {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"tool_result","tool_use_id":`)
		writeString(b, anthropicID(r.CallID))
		if r.Text != "" { // an empty result goes without content, which the API takes
			b.WriteString(`,"content":`)
			writeString(b, r.Text)
		}
		if r.IsError {
			b.WriteString(`,"is_error":true`)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
}

// writeAssistant writes an assistant turn: its raw message when o made it, else text and
// tool_use blocks (another model's thinking cannot be verified here and is not sent). It
// reports false when there was nothing to write.
func writeAssistant(b *bytes.Buffer, m *Message, o Origin) (bool, error) {
	if raw := m.rawFor(o); raw != nil {
		if !json.Valid(raw) {
			return false, errors.New("the stored raw message is not valid JSON")
		}
		if !bytes.Contains(raw, []byte(`"type":"text"`)) && !bytes.Contains(raw, []byte(`"type":"tool_use"`)) {
			// A cut turn that kept no text and no call (nothing, or thinking alone): the API
			// refuses an empty assistant message. Inside JSON strings these words are escaped,
			// so only a block's own type matches.
			return false, nil
		}
		b.Write(raw)
		return true, nil
	}
	if m.Text == "" && len(m.ToolCalls) == 0 {
		return false, nil
	}
	b.WriteString(`{"role":"assistant","content":[`)
	n := 0
	if m.Text != "" {
		b.WriteString(`{"type":"text","text":`)
		writeString(b, m.Text)
		b.WriteByte('}')
		n++
	}
	for _, tc := range m.ToolCalls {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`{"type":"tool_use","id":`)
		writeString(b, anthropicID(tc.ID))
		b.WriteString(`,"name":`)
		writeString(b, tc.Name)
		b.WriteString(`,"input":`)
		if isJSONObject(tc.Arguments) {
			b.WriteString(strings.TrimSpace(tc.Arguments))
		} else {
			b.WriteString(`{}`) // arguments that never parsed; their result says so
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return true, nil
}

// anthropicID makes a call id from another provider fit the Messages API's pattern
// ^[a-zA-Z0-9_-]+$ (Kimi's look like "functions.read_file:0"). The same id always maps to
// the same result, so a call and its result stay paired; a valid id is unchanged.
func anthropicID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		ok = isIDByte(id[i])
	}
	if ok {
		return id
	}
	var s strings.Builder
	for i := 0; i < len(id); i++ {
		if isIDByte(id[i]) {
			s.WriteByte(id[i])
		} else {
			s.WriteByte('_')
		}
	}
	if s.Len() == 0 {
		return "call_"
	}
	return s.String()
}

func isIDByte(c byte) bool {
	return c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
