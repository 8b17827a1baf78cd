package provider

import (
	"errors"
	"slices"
	"strings"
)

// Servers say "this request is too long for the model" in their own words. The runner needs
// to know, because that failure is answered by compacting and trying again, not by stopping.
// Every wording below was seen from a real server; context_test.go holds the full messages.
var contextLengthCodes = []string{
	"context_length_exceeded",   // OpenAI, Azure, Groq, DeepSeek
	"exceed_context_size_error", // llama.cpp's llama-server (in "type")
	"string_above_max_length",   // OpenAI, for one message longer than it accepts
}

var contextLengthPhrases = []string{
	"maximum context length",                  // OpenAI, vLLM, OpenRouter, LiteLLM
	"exceeds the available context size",      // llama.cpp
	"exceeds the context length",              // Ollama
	"exceeds maximum context length",          // Ollama (older)
	"exceeded max context length",             // Ollama runner
	"is longer than the maximum model length", // vLLM decoder prompt check
	"maximum model length",                    // vLLM wording variants
	"prompt is too long",                      // Anthropic-compatible gateways
	"context window exceeds limit",            // Moonshot and others
	"reduce the length of the messages",       // OpenAI-style advice without a number
	"too many tokens in the prompt",
	"context length exceeded",
	"input is too long",
}

// isContextLength reports whether a server's error code and message mean the request did not
// fit in the model's context window.
func isContextLength(code, message string) bool {
	return says(code, message, contextLengthCodes, contextLengthPhrases)
}

// says reports whether a server's error code is one of codes (any case) or its message holds
// one of phrases (lowercase): how each kind of refusal is recognised in the servers' words.
func says(code, message string, codes, phrases []string) bool {
	if slices.Contains(codes, strings.ToLower(code)) {
		return true
	}
	m := strings.ToLower(message)
	return slices.ContainsFunc(phrases, func(p string) bool { return strings.Contains(m, p) })
}

// ContextExceeded reports whether err (a Response.Err) says the request was rejected for its
// length: the model's context window is full. The runner compacts and retries once on it.
func ContextExceeded(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindContextLength
}
