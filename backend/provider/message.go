package provider

import (
	"encoding/json"
	"strings"
)

// Kinds of wire format a provider speaks (Config.Kind, Origin.Kind).
const (
	KindOpenAI    = "openai"    // any OpenAI-compatible Chat Completions endpoint
	KindAnthropic = "anthropic" // Anthropic's Messages API
)

// Role is who speaks a Message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Origin names what produced an assistant turn: the configured provider's name, its wire kind
// and the model. A turn is sent back in its raw form only to the same origin.
type Origin struct {
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	Model    string `json:"model"`
}

// Message is one message of a conversation, neutral of any wire format: each adapter encodes
// it its own way. store.Turns derives the list from a session's rows.
//
//   - system, user: Text.
//   - assistant: Text and ToolCalls (the portable form every provider understands), plus Raw,
//     the provider's own message exactly as received, and Origin, what produced it. An adapter
//     sends Raw unmodified when Origin is its own (same provider name, kind and model), and the
//     portable form otherwise.
//   - tool: the result of call CallID (tool ToolName): Text, IsError.
//   - user rows with images: ImageRefs names the stored images to send (by hash); the caller
//     loads them, fitted to the provider's limits, into Images before the request, and the
//     adapters send Images (image_url data URLs, or Anthropic image blocks) with the text.
type Message struct {
	Role      Role
	Text      string
	ToolCalls []ToolCall
	CallID    string
	ToolName  string
	IsError   bool
	Raw       json.RawMessage
	Origin    Origin
	ImageRefs []string
	Images    []Image
}

// Image is one image to send, already fitted to the provider's limits.
type Image struct {
	MediaType string // image/png, image/jpeg, image/webp, image/gif
	Data      []byte
}

// rawFor is m's raw message when it may go to origin o unmodified, else nil.
func (m *Message) rawFor(o Origin) json.RawMessage {
	if m.Role != RoleAssistant || len(m.Raw) == 0 || m.Origin != o {
		return nil
	}
	return m.Raw
}

// isGemini3 reports whether model is a Gemini 3 model, whose OpenAI-compatible endpoint refuses
// function calls without a thought signature.
func isGemini3(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "google/gemini-3-pro" on OpenRouter, "models/gemini-3..." on Google
	}
	return strings.HasPrefix(m, "gemini-3")
}

// geminiSkipSignature is the value Google documents for function calls that did not come from
// Gemini (another model's turn, an injected call): "skip_thought_signature_validator"
// (ai.google.dev/gemini-api/docs/thought-signatures, "FAQs").
const geminiSkipSignature = "skip_thought_signature_validator"
