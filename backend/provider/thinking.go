package provider

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
)

// The thinking budget on OpenAI-compatible servers. Chat Completions has no common field for
// it: each server documents its own, so the body carries the one of the server's dialect
// (docs/providers.md has the table). A server whose parameter Loopdesk does not know — a
// local server, a proxy, or one that documents none — is sent nothing, so a budget never
// makes a request fail there. Off (no budget) is never sent either: the server's default.

// Dialects of OpenAI-compatible servers, as far as the thinking budget goes.
const (
	DialectOpenAI     = "openai"     // reasoning_effort (OpenAI, Azure OpenAI)
	DialectOpenRouter = "openrouter" // reasoning.max_tokens
	DialectGemini     = "gemini"     // reasoning_effort (Gemini 3) or extra_body.google.thinking_config
	DialectDeepSeek   = "deepseek"   // thinking.type + reasoning_effort
	DialectKimi       = "kimi"       // documents no budget: nothing is sent
)

// dialectHosts maps a server's host (or a suffix of it, with a leading dot) to its dialect.
var dialectHosts = []struct{ host, dialect string }{
	{"api.openai.com", DialectOpenAI},
	{".openai.azure.com", DialectOpenAI},
	{"openrouter.ai", DialectOpenRouter},
	{"generativelanguage.googleapis.com", DialectGemini},
	{"api.deepseek.com", DialectDeepSeek},
	{"api.moonshot.ai", DialectKimi},
	{"api.moonshot.cn", DialectKimi},
}

// DialectOf names the dialect of the server at baseURL from its host, "" when unknown.
func DialectOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range dialectHosts {
		if host == strings.TrimPrefix(d.host, ".") || (strings.HasPrefix(d.host, ".") && strings.HasSuffix(host, d.host)) {
			return d.dialect
		}
	}
	return ""
}

// Google's documented budgets of the reasoning_effort levels (Gemini's OpenAI
// compatibility): a budget maps to the smallest level that gives at least that much.
const (
	effortLowBudget    = 1024
	effortMediumBudget = 8192
)

// Effort is the reasoning_effort a thinking budget maps to: "low" up to 1,024 tokens,
// "medium" up to 8,192, "high" above (Google's documented budgets of the three levels).
func Effort(budget int) string {
	switch {
	case budget <= effortLowBudget:
		return "low"
	case budget <= effortMediumBudget:
		return "medium"
	}
	return "high"
}

// thinkingBudget is the budget a request asks for: Request.ThinkingBudget, else the
// configured one; 0 when off.
func thinkingBudget(req Request, cfg Config) int {
	b := req.ThinkingBudget
	if b == 0 {
		b = cfg.ThinkingBudget
	}
	return max(b, 0)
}

// writeThinking appends the dialect's thinking parameter for budget (> 0) to a request body
// being written (after the messages, so a changed budget never moves the cached prefix).
func writeThinking(b *bytes.Buffer, dialect, model string, budget int) {
	if budget <= 0 {
		return
	}
	switch dialect {
	case DialectOpenAI:
		fmt.Fprintf(b, `,"reasoning_effort":%q`, Effort(budget))
	case DialectOpenRouter:
		fmt.Fprintf(b, `,"reasoning":{"max_tokens":%d}`, budget)
	case DialectGemini:
		if strings.Contains(strings.ToLower(model), "gemini-3") {
			// Gemini 3 thinks in levels; Google maps reasoning_effort onto them.
			fmt.Fprintf(b, `,"reasoning_effort":%q`, Effort(budget))
			return
		}
		fmt.Fprintf(b, `,"extra_body":{"google":{"thinking_config":{"thinking_budget":%d}}}`, budget)
	case DialectDeepSeek:
		fmt.Fprintf(b, `,"thinking":{"type":"enabled"},"reasoning_effort":%q`, Effort(budget))
	}
}
