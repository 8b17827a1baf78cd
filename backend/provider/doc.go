// Package provider is the model client: it streams Chat Completions from any
// OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama, LM Studio,
// OpenRouter, Groq, Mistral, Azure, ...) through openai-go and folds the
// stream into one assistant turn.
//
// The request body is written by hand and handed to openai-go as bytes, so
// the caller's wire messages go out byte for byte (provider prompt caches
// match on exact prefixes); openai-go supplies the base URL, auth, headers
// and its SSE framing (ssestream), which already skips comment lines. The
// events themselves are read here because servers differ in ways the SDK's
// typed stream hides or rejects: "event: error" without an "error" field,
// a stream that ends without [DONE] or a finish, tool-call fragments without
// an index, arguments sent as an object, reasoning under two names.
//
// Rules the loop relies on:
//   - Tool calls are merged by index, by id where a server sends no index;
//     an empty id or name never overwrites an earlier one; ids are made up
//     where none (or a duplicate) is sent.
//   - Response.ToolCalls holds only complete calls whose arguments are a
//     JSON object, and only when Status is ok: the turn is a tool turn
//     exactly then, whatever finish_reason says. Everything else is in
//     InvalidToolCalls and must never be executed.
//   - finish_reason "length" is StatusTruncated, "content_filter" is
//     StatusRefused; an error in the stream, a broken stream or one that
//     ends without a finish is StatusProviderError with the server's message
//     (an error after a length or content_filter finish keeps that status
//     and puts the server's message in Response.Err).
//   - Usage is the last usage a chunk carried, never a sum.
//   - Retries (429, 5xx, connection errors) happen only before any delta
//     arrived, so a Handler never sees a delta twice. Retry-After is honoured
//     up to Config.MaxBackoff.
//   - The API key never appears in an error message.
package provider
