// Package provider is the model client: one adapter per wire format, behind one contract.
// Open(cfg) returns the adapter of cfg.Kind: "openai" (Client, Chat Completions from any
// OpenAI-compatible server: OpenAI, vLLM, llama.cpp, Ollama, LM Studio, OpenRouter, Groq,
// DeepSeek, Gemini, Kimi, Mistral, Azure, ...) or "anthropic" (Anthropic, the Messages API,
// natively). Each streams one assistant turn and folds it into a Response.
//
// # The turn goes back exactly as it came
//
// The conversation is a list of neutral Messages (role, text, tool calls, tool result, and
// for an assistant turn its Raw message and Origin); store.Turns derives it from a
// session's rows. Each adapter assembles the provider's own message from the stream, every
// field, known or not, into Response.Raw, tagged with Response.Origin (the configured
// provider's Name, the kind and the model):
//
//   - openai: role, content, then every other field of the deltas in the order it first came
//     (reasoning_content, reasoning, reasoning_details, refusal, fields no one told us about),
//     strings concatenated, objects merged; then
//     tool_calls, each with every field of its fragments (extra_content with Gemini 3's
//     google.thought_signature). Identity fields (id, type, name, format, index) keep their
//     first value, since some servers repeat them in every fragment. OpenRouter's
//     reasoning_details keep every item in the order it came: a piece continues the item
//     before it only when both have the same index and type (a reasoning.text or
//     reasoning.summary in pieces: text concatenated, other fields first value); a
//     reasoning.encrypted item is always an item of its own (Gemini 3 sends its thought
//     signature as one, at the index of the text before it).
//   - anthropic: {"role":"assistant","content":[...]}, the content blocks as streamed: text,
//     thinking with its signature, redacted_thinking, tool_use with its input.
//
// The request builder sends a Message's Raw unmodified when its Origin equals the request's
// (same provider name, kind and model), and the portable form (text and tool calls)
// otherwise, following each provider's rule for foreign turns: Gemini 3 gets Google's
// documented "skip_thought_signature_validator" on the first call of a foreign turn;
// Anthropic gets call ids fitted to its ^[a-zA-Z0-9_-]+$ pattern (on the tool_use and its
// tool_result alike), and a request whose open tool loop was made elsewhere is sent without
// thinking (the API requires a thinking block to open it). A turn that did not end ok keeps
// no tool calls in its Raw, as the row keeps none: nothing unpaired is ever sent.
//
// Request.Cache keeps a conversation's encoded messages, so the next request encodes only
// what changed (a compaction or an undo re-encodes from the first message that differs).
//
// # OpenAI-compatible (Client)
//
// The request body is written by hand and sent as bytes, so messages go out byte for byte
// (provider prompt caches match on exact prefixes). Both adapters share one transport and one
// server-sent-events loop (exchange.go: the request, the idle watchdog, the framing, which
// skips comment lines, and the drain after the last event). The events themselves are read
// here because servers differ in ways the SDK's typed stream hides or rejects: "event:
// error" without an "error" field, a stream that ends without [DONE] or a finish, tool-call
// fragments without an index, arguments sent as an object, reasoning under two names.
//
// The thinking budget goes in the server's own parameter, told by the base URL's host
// (DialectOf; Config.Dialect overrides it): reasoning_effort (OpenAI, Gemini 3),
// reasoning.max_tokens (OpenRouter), extra_body.google.thinking_config.thinking_budget
// (other Gemini), thinking + reasoning_effort (DeepSeek); nothing for a server that
// documents none or is unknown, and nothing when off (thinking.go).
//
// # Anthropic (Anthropic)
//
// The base URL is the API root, without /v1; every request names anthropic-version
// 2023-06-01 and carries the key in the x-api-key header only; the stream is framed by the
// shared loop (exchange.go). The body is written here: extended thinking with the budget
// (Request.ThinkingBudget, else Config.ThinkingBudget; max_tokens grows past it), tool
// results as tool_result blocks (consecutive results one user message), and four cache
// breakpoints: the last tool, the system prompt, and the last block of the last two user
// messages, so each request reads from the cache what the last one wrote. Field order puts
// what never changes first and the messages last.
//
// # Requests (both adapters)
//
// Requests go out with net/http (request.go), not through the SDKs' clients: every body is
// written here, retries and timeouts are Stream's own, and the clients added only the base
// URL and headers, which request.go adds itself — the path resolved against the base URL as
// the SDKs resolve it, the key in the one header the wire format reads (none when there is
// no key), Loopdesk's User-Agent, and the body with its length (never chunked). A redirect is
// followed only on the same origin, so a key never goes to a server it was not given to.
// Nothing is read from the environment. The clients' packages are not linked at all:
// their package inits register the whole API with reflection, which made the window's
// binary 49 MB instead of 20 and its idle memory and start measurably worse (linked_test.go
// keeps them out; docs/benchmarks.md, "The SDKs' clients out of the binary").
//
// # Rules the loop relies on (both adapters)
//
//   - Response.ToolCalls holds only complete calls whose arguments are a JSON object, and
//     only when Status is ok: the turn is a tool turn exactly then, whatever the finish
//     reason says. Everything else is in InvalidToolCalls and must never be executed. OpenAI
//     tool calls are merged by index, by id where a server sends no index; an empty id or
//     name never overwrites an earlier one; ids are made up where none (or a duplicate) is
//     sent.
//   - Every reason a turn ends with is mapped by a table (finish.go): finish_reason
//     "length" / stop_reason "max_tokens" is StatusTruncated, "content_filter" / "refusal"
//     is StatusRefused, Anthropic's "model_context_window_exceeded" (and Mistral's
//     "model_length") is StatusContextExceeded, Anthropic's "pause_turn" is StatusPaused;
//     a reason the table does not know, on a turn with calls, is StatusProviderError naming
//     it (on a turn of text alone it is ok: nothing would run). An error in the stream (an
//     Anthropic error event included), a broken stream or one that ends without a finish is
//     StatusProviderError with the server's message. Only StatusOK turns have ToolCalls.
//   - Usage: InputTokens is the whole input, cache reads and writes included (Anthropic
//     reports them apart: input_tokens + cache_creation_input_tokens +
//     cache_read_input_tokens); CacheReadTokens, CacheWriteTokens and ReasoningTokens as the
//     server reports them (prompt_tokens_details, DeepSeek's prompt_cache_hit_tokens,
//     Moonshot's cached_tokens, completion_tokens_details.reasoning_tokens). The last usage a
//     chunk carried, never a sum.
//   - Retries (429, 5xx, Anthropic's 529 overloaded, connection errors, an overloaded error
//     event before any output) happen only before any delta arrived, so a Handler never sees
//     a delta twice. Retry-After is honoured up to Config.MaxBackoff.
//   - A request refused for its length ("maximum context length", Anthropic's "prompt is too
//     long", ...) is KindContextLength: ContextExceeded(err) says so, and the runner compacts.
//   - The API key never appears in an error message.
package provider
