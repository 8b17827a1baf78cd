package provider

import "fmt"

// How a turn ended, from the reason the server gave. The rule the loop relies on: a turn's tool
// calls run only when the turn is known to be complete. A reason that says the turn was cut
// (by the output limit, the context window, a filter, an error) never lets its calls run, and
// neither does a reason no one documented: a turn with calls and an unknown reason is
// StatusProviderError, naming the reason; a turn of text alone with an unknown reason is kept
// as ok, since there is nothing to run and the text is the answer.

// openAIFinish maps Chat Completions' finish_reason, as OpenAI-compatible servers send it.
var openAIFinish = map[string]Status{
	"":                              StatusOK, // a stream that ended with [DONE] and no reason
	"stop":                          StatusOK,
	"tool_calls":                    StatusOK,
	"function_call":                 StatusOK, // the legacy name
	"eos":                           StatusOK, // llama.cpp and vLLM builds that report the end token
	"eos_token":                     StatusOK, // Text Generation Inference
	"stop_sequence":                 StatusOK, // Text Generation Inference
	"length":                        StatusTruncated,
	"max_tokens":                    StatusTruncated, // gateways passing Anthropic's reason through
	"content_filter":                StatusRefused,
	"refusal":                       StatusRefused,
	"model_length":                  StatusContextExceeded, // Mistral: the context window is full
	"model_context_window_exceeded": StatusContextExceeded, // gateways passing Anthropic's reason through
	"error":                         StatusProviderError,   // OpenRouter, Mistral
	"insufficient_system_resource":  StatusProviderError,   // DeepSeek: generation interrupted
}

// anthropicStop maps the Messages API's stop_reason, every value Anthropic documents.
var anthropicStop = map[string]Status{
	"end_turn":                      StatusOK,
	"tool_use":                      StatusOK,
	"stop_sequence":                 StatusOK,
	"max_tokens":                    StatusTruncated,
	"refusal":                       StatusRefused,
	"model_context_window_exceeded": StatusContextExceeded,
	"pause_turn":                    StatusPaused,
}

// finishStatus is the status of a turn that ended with reason, by table; hasCalls says
// whether the turn carried tool calls, for a reason the table does not know.
func finishStatus(table map[string]Status, reason string, hasCalls bool) Status {
	if st, ok := table[reason]; ok {
		return st
	}
	if hasCalls {
		return StatusProviderError
	}
	return StatusOK
}

// finishMessage says why a turn that ended with reason is a provider error.
func finishMessage(reason string) string {
	if _, known := openAIFinish[reason]; known {
		return fmt.Sprintf("finish_reason %q", reason)
	}
	return fmt.Sprintf("finish_reason %q is not one Loopdesk knows; the turn's tool calls were not run", reason)
}
