package fakeai

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
)

// anthropicState is what the fake Messages API remembers between requests: the prefixes it
// cached and the redacted thinking it handed out.
type anthropicState struct {
	cached   map[string]bool // hash of a prefix ending at a breakpoint
	redacted map[string]bool
}

// messagesRequest is the part of a Messages API request the fake reads.
type messagesRequest struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	Stream    bool              `json:"stream"`
	System    json.RawMessage   `json:"system"`
	Tools     []json.RawMessage `json:"tools"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
}

// block is one content block of a request message, as the checks read it.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"input"`
	Cache     json.RawMessage `json:"cache_control"`
	raw       json.RawMessage
}

// blocks reads a message's content: a string is one text block.
func blocks(content json.RawMessage) ([]block, error) {
	content = bytes.TrimSpace(content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return nil, err
		}
		return []block{{Type: "text", Text: s, raw: content}}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(content, &raws); err != nil {
		return nil, err
	}
	out := make([]block, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, err
		}
		out[i].raw = r
	}
	return out, nil
}

var toolIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// thinkingSignature is the signature the fake gives a thinking text: a keyed hash, so an
// altered text or signature no longer matches, as with the real API.
func thinkingSignature(thinking string) string {
	sum := sha256.Sum256([]byte("fakeai-thinking-key\x00" + thinking))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// check validates a request as strictly as the Messages API does where Loopdesk can go
// wrong; it returns the API's message for the first problem, or "".
func (req *messagesRequest) check(st *anthropicState) string {
	if req.MaxTokens <= 0 {
		return "max_tokens: Field required"
	}
	if req.Thinking != nil && req.Thinking.Type == "enabled" {
		if req.Thinking.BudgetTokens < 1024 {
			return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		}
		if req.MaxTokens <= req.Thinking.BudgetTokens {
			return "`max_tokens` must be greater than `thinking.budget_tokens`"
		}
	}
	msgs := make([][]block, len(req.Messages))
	for i, m := range req.Messages {
		bs, err := blocks(m.Content)
		if err != nil {
			return fmt.Sprintf("messages.%d.content: %v", i, err)
		}
		msgs[i] = bs
	}
	if n := req.breakpoints(msgs); n > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", n)
	}
	for i := range msgs {
		if msg := req.checkMessage(msgs, i, st); msg != "" {
			return msg
		}
	}
	return ""
}

func (req *messagesRequest) breakpoints(msgs [][]block) int {
	n := 0
	for _, t := range req.Tools {
		if bytes.Contains(t, []byte(`"cache_control"`)) {
			n++
		}
	}
	if sys, err := blocks(req.System); err == nil && len(req.System) > 0 {
		for _, b := range sys {
			if len(b.Cache) > 0 {
				n++
			}
		}
	}
	for _, bs := range msgs {
		for _, b := range bs {
			if len(b.Cache) > 0 {
				n++
			}
		}
	}
	return n
}

// checkMessage checks message i: text not empty, ids well formed, thinking signed by this
// server, every tool_use answered in the next message and every tool_result answering one in
// the previous message, and a tool loop opening with thinking while thinking is on.
func (req *messagesRequest) checkMessage(msgs [][]block, i int, st *anthropicState) string {
	role := req.Messages[i].Role
	uses := map[string]bool{}
	for k, b := range msgs[i] {
		switch b.Type {
		case "text":
			if b.Text == "" {
				return fmt.Sprintf("messages.%d.content.%d.text: text content blocks must be non-empty", i, k)
			}
		case "thinking":
			if b.Signature != thinkingSignature(b.Thinking) {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, k)
			}
		case "redacted_thinking":
			if !st.redacted[b.Data] {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, k)
			}
		case "tool_use":
			if role != "assistant" || !toolIDPattern.MatchString(b.ID) {
				return fmt.Sprintf("messages.%d.content.%d.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, k)
			}
			uses[b.ID] = true
		case "tool_result":
			if i == 0 || !hasToolUse(msgs[i-1], b.ToolUseID) {
				return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, k, b.ToolUseID)
			}
		}
	}
	if len(uses) > 0 {
		for id := range uses {
			if i+1 >= len(msgs) || !hasToolResult(msgs[i+1], id) {
				return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, id)
			}
		}
		thinkingOn := req.Thinking != nil && req.Thinking.Type == "enabled"
		if thinkingOn && i == lastAssistant(req) && msgs[i][0].Type != "thinking" && msgs[i][0].Type != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns.", i, msgs[i][0].Type)
		}
	}
	return ""
}

func lastAssistant(req *messagesRequest) int {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "assistant" {
			return i
		}
	}
	return -1
}

func hasToolUse(bs []block, id string) bool {
	for _, b := range bs {
		if b.Type == "tool_use" && b.ID == id {
			return true
		}
	}
	return false
}

func hasToolResult(bs []block, id string) bool {
	for _, b := range bs {
		if b.Type == "tool_result" && b.ToolUseID == id {
			return true
		}
	}
	return false
}

// cacheUsage works out the request's cache reads and writes the way the API does: the
// prompt is tools, then system, then messages, block by block; a prefix ending at a
// cache_control breakpoint is written to the cache, and a later request reads the longest
// cached prefix that ends at one of its blocks within 20 blocks before one of its
// breakpoints. A breakpoint's marker is not part of what is hashed. Tokens are estimated at
// four bytes each. It returns uncached input, cache writes and cache reads.
func (req *messagesRequest) cacheUsage(st *anthropicState) (input, write, read int64) {
	var hashes []string
	var tokens []int64
	var marks []int
	h, total := "", int64(0)
	add := func(prefix string, raw json.RawMessage, marked bool) {
		canon := prefix + stripCache(raw)
		sum := sha256.Sum256([]byte(h + "\x00" + canon))
		h = hex.EncodeToString(sum[:])
		total += int64(len(canon)/4 + 1)
		hashes, tokens = append(hashes, h), append(tokens, total)
		if marked {
			marks = append(marks, len(hashes)-1)
		}
	}
	for _, t := range req.Tools {
		add("tool:", t, bytes.Contains(t, []byte(`"cache_control"`)))
	}
	if len(req.System) > 0 {
		sys, _ := blocks(req.System)
		for _, b := range sys {
			add("system:", b.raw, len(b.Cache) > 0)
		}
	}
	for _, m := range req.Messages {
		bs, _ := blocks(m.Content)
		for k, b := range bs {
			prefix := ""
			if k == 0 {
				prefix = m.Role + ":" // a new message starts here
			}
			add(prefix, b.raw, len(b.Cache) > 0)
		}
	}
	for _, m := range marks {
		for j := m; j >= 0 && j >= m-20; j-- {
			if st.cached[hashes[j]] && tokens[j] > read {
				read = tokens[j]
			}
		}
	}
	if st.cached == nil {
		st.cached = map[string]bool{}
	}
	if len(marks) > 0 {
		write = max(tokens[marks[len(marks)-1]]-read, 0)
	}
	for _, m := range marks {
		st.cached[hashes[m]] = true
	}
	return total - read - write, write, read
}

// stripCache removes cache_control from a block: a breakpoint is an instruction about the
// prompt, not part of it.
func stripCache(raw json.RawMessage) string {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	delete(v, "cache_control")
	b, _ := json.Marshal(v)
	return string(b)
}
