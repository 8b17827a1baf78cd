package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Wire shapes of OpenAI Chat Completions request messages. Field order is fixed by these
// structs, which is what makes the encoding byte-for-byte deterministic.
type (
	oaText struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	oaAssistant struct {
		Role             string       `json:"role"`
		Content          string       `json:"content"`
		ReasoningContent *string      `json:"reasoning_content,omitempty"`
		ToolCalls        []oaToolCall `json:"tool_calls,omitempty"`
	}
	oaToolCall struct {
		ID           string         `json:"id"`
		Type         string         `json:"type"`
		Function     oaFunction     `json:"function"`
		ExtraContent *oaExtraGoogle `json:"extra_content,omitempty"`
	}
	oaFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	oaExtraGoogle struct {
		Google struct {
			ThoughtSignature string `json:"thought_signature"`
		} `json:"google"`
	}
	oaTool struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Content    string `json:"content"`
	}
)

// EncodeOpenAI encodes msgs as Chat Completions messages for a request to origin o (Kind
// "openai"). An assistant turn made by o goes out as its Raw bytes, unmodified; any other in
// the portable form:
//
//	{"role":"assistant","content":text,"tool_calls":[{"id","type":"function","function":{"name","arguments"}}]}
//
// with arguments exactly as the model produced them and content always a string (some servers
// reject null). Reasoning from another model is not sent: OpenAI rejects or ignores it and
// local servers re-render it inconsistently. For a Gemini 3 model, each foreign turn's first
// call carries Google's documented "skip_thought_signature_validator" signature, without which
// Gemini refuses the request. DeepSeek V4 and Kimi refuse any tool-call turn without a
// reasoning_content, theirs or not, and document nothing for another model's turns: a foreign
// tool-call turn gets an empty one, the workaround clients use (an assumption, not a rule
// either vendor wrote down).
func EncodeOpenAI(msgs []Message, o Origin) ([]json.RawMessage, error) {
	units, err := openAIUnits(o)(msgs, 0)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(units))
	for i, u := range units {
		out[i] = u.b
	}
	return out, nil
}

// openAIUnits encodes each message as one unit.
func openAIUnits(o Origin) encodeFunc {
	return func(msgs []Message, from int) ([]unit, error) {
		out := make([]unit, 0, len(msgs)-from)
		for i := from; i < len(msgs); i++ {
			b, err := encodeOpenAIMessage(&msgs[i], o)
			if err != nil {
				return nil, fmt.Errorf("provider: message %d (%s): %w", i, msgs[i].Role, err)
			}
			out = append(out, unit{from: i, to: i + 1, b: b})
		}
		return out, nil
	}
}

func encodeOpenAIMessage(m *Message, o Origin) (json.RawMessage, error) {
	switch m.Role {
	case RoleUser:
		if len(m.Images) > 0 {
			return marshalJSON(oaParts{Role: "user", Content: openAIParts(m)})
		}
		return marshalJSON(oaText{Role: string(m.Role), Content: m.Text})
	case RoleSystem:
		return marshalJSON(oaText{Role: string(m.Role), Content: m.Text})
	case RoleTool:
		return marshalJSON(oaTool{Role: "tool", ToolCallID: m.CallID, Content: m.Text})
	case RoleAssistant:
		if raw := m.rawFor(o); raw != nil {
			if !json.Valid(raw) {
				return nil, fmt.Errorf("the stored raw message is not valid JSON")
			}
			return raw, nil
		}
		a := oaAssistant{Role: "assistant", Content: m.Text}
		if len(m.ToolCalls) > 0 && needsReasoningBack(o.Model) {
			a.ReasoningContent = new(string)
		}
		for i, tc := range m.ToolCalls {
			c := oaToolCall{ID: tc.ID, Type: "function", Function: oaFunction{Name: tc.Name, Arguments: tc.Arguments}}
			if i == 0 && isGemini3(o.Model) {
				c.ExtraContent = &oaExtraGoogle{}
				c.ExtraContent.Google.ThoughtSignature = geminiSkipSignature
			}
			a.ToolCalls = append(a.ToolCalls, c)
		}
		return marshalJSON(a)
	}
	return nil, fmt.Errorf("unknown role %q", m.Role)
}

// needsReasoningBack reports whether model's server refuses a tool-call turn without
// reasoning_content (DeepSeek V4 in thinking mode, on by default; Kimi's thinking models). Not
// the older deepseek-reasoner, which refuses reasoning_content in a request.
func needsReasoningBack(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "deepseek-v4") || strings.Contains(m, "kimi")
}

// marshalJSON encodes v without HTML escaping (text goes to a model, not a page) and without
// the encoder's trailing newline.
func marshalJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// A user message with images: the text, then one image_url part per image, as a data URL.
type (
	oaParts struct {
		Role    string   `json:"role"`
		Content []oaPart `json:"content"`
	}
	oaPart struct {
		Type     string      `json:"type"`
		Text     *string     `json:"text,omitempty"`
		ImageURL *oaImageURL `json:"image_url,omitempty"`
	}
	oaImageURL struct {
		URL string `json:"url"`
	}
)

func openAIParts(m *Message) []oaPart {
	text := m.Text
	parts := []oaPart{{Type: "text", Text: &text}}
	for _, im := range m.Images {
		parts = append(parts, oaPart{Type: "image_url", ImageURL: &oaImageURL{URL: dataURL(im)}})
	}
	return parts
}

func dataURL(im Image) string {
	return "data:" + im.MediaType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}
