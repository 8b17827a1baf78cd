// Package fakeai is a scripted OpenAI-compatible server for tests. It listens
// on loopback and streams Chat Completions as Server-Sent Events the way real
// servers do, so tests exercise the real client over real HTTP.
//
// # From Go tests
//
//	srv, err := fakeai.Start()              // 127.0.0.1:0; options: WithAPIKey, WithDelay, WithAddr
//	defer srv.Close()                       // also ends stalled streams
//	srv.Enqueue(
//		fakeai.Text("Hello there"),          // role-only chunk, word deltas, finish "stop"
//		fakeai.ToolCalls(fakeai.Call{Name: "read_file", Arguments: `{"path":"a.txt"}`}),
//		fakeai.HTTPError(429, "").WithRetryAfter("1"),
//		fakeai.Raw("data: {...}\n\ndata: [DONE]\n\n"), // exact bytes, for other servers' shapes
//	)
//	client := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("k"))
//	...
//	reqs := srv.Requests()                  // Method, Path, Header (Authorization kept), Body
//
// Each POST /v1/chat/completions takes the next queued Reply; with the queue
// empty it streams "You said: <last user message>" word by word. A reply is
// adjusted with chainable methods: WithReasoning (reasoning_content deltas),
// WithUsage, WithFinish, WithDelay (per delta), WithRetryAfter, StallAfter
// (stop after n deltas and hold the connection open). Stall(d) sends headers
// and then nothing; HTML(status) answers a web page. A usage chunk with empty
// choices follows the finish when the request set
// stream_options.include_usage. A request with "stream": false gets a plain
// chat.completion object.
//
// Thinking models: WithDialect(DialectDeepSeek | DialectKimi | DialectGemini |
// DialectOpenRouter) streams a reply the way that server does (reasoning_content beside
// content null, Kimi's "functions.NAME:N" ids, Gemini's whole calls without an index carrying
// extra_content.google.thought_signature, OpenRouter's reasoning_details by index) and makes
// the server as strict as the real one: a later request to the same model whose assistant turn
// drops what was sent is answered 400 with that server's own message (dialect.go).
//
// The Messages API (anthropic.go) is served at POST /v1/messages from the same queue: Reasoning
// becomes a signed thinking block, WithRedactedThinking adds a redacted_thinking block,
// WithStreamError cuts the stream with an error event. It refuses what Anthropic refuses where
// a client can go wrong (no anthropic-version, no max_tokens, an unpaired tool_use or
// tool_result, a thinking block whose signature it did not give, more than four
// cache_control breakpoints, a thinking tool loop not opened by thinking), takes the key
// from x-api-key only, and reports cache_creation_input_tokens and cache_read_input_tokens
// from the breakpoints of the requests it saw.
//
// GET /v1/models lists "fake-model". With WithAPIKey every /v1 request
// without "Authorization: Bearer <key>" gets 401 and an OpenAI-style error.
//
// # From other processes (the end-to-end runner)
//
// The command backend/fakeai/cmd/fakeai (flags -addr, -delay, -api-key)
// prints exactly one line, FAKEAI_URL=http://127.0.0.1:PORT/v1, on stdout
// once it accepts connections, and exits on SIGINT, SIGTERM or when its
// stdin reaches end of file (so it dies with a parent that spawned it with a
// pipe; pass -stdin=false to run it detached). The control API sits beside
// /v1 on the same port:
//
//	POST /_fake/enqueue    JSON array of replies, e.g. [{"kind":"text","text":"Hi"},
//	                       {"kind":"http_error","status":500},{"kind":"raw","raw":"data: ..."},
//	                       {"kind":"text","calls":[{"name":"n","arguments":"{}"}]},
//	                       {"kind":"stall","stall_ms":0},{"kind":"html","status":200}]
//	                       optional fields: reasoning, finish, usage{prompt_tokens,
//	                       completion_tokens,cached_tokens}, delay_ms, stall_after,
//	                       stall_ms, retry_after, body
//	GET  /_fake/requests   JSON array of {method, path, header, body (a string)}
//	GET  /_fake/timings    JSON array, one per /v1 request: {path, body_bytes, started_unix_ms,
//	                       body_read_unix_ms, first_byte_unix_ms, server_ms} (timing.go)
//	POST /_fake/reset      forget queued replies and recorded requests
//	POST /_fake/refuse_images {"reason":"format"|"too_large"|"text_only"|"", "min_bytes":N}:
//	                       refuse requests carrying an image (of at least N bytes) with the
//	                       real server's 400 and error body (images.go); "" stops refusing
//
// POST /_fake/enqueue?for=MARKER queues the replies for the conversations whose first user
// message contains MARKER (EnqueueFor, routes.go), so a parent and its child sessions can be
// scripted apart; the Messages API (/v1/messages) is routed the same way.
//
// Control requests are not recorded and need no API key.
package fakeai
