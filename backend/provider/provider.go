package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Defaults for the zero values of Config.
const (
	DefaultRequestTimeout = 5 * time.Minute // local models may think long before the first byte
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxRetries     = 2
	DefaultBackoffBase    = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
)

// Config says where the model server is, what it speaks and how patient to be.
type Config struct {
	// Name is the configured provider's name ("default", "deepseek", ...): it tags every turn
	// (Response.Origin) so a stored turn goes back raw only to the provider that made it.
	Name string
	// Kind is the wire format: KindOpenAI ("" too) or KindAnthropic.
	Kind string
	// BaseURL: for openai, the URL ending in /v1 (e.g. http://localhost:11434/v1); for
	// anthropic, the API root without /v1 (e.g. https://api.anthropic.com).
	BaseURL string
	// APIKey is sent as a bearer token (openai) or in the x-api-key header (anthropic) only;
	// never logged or put in an error.
	APIKey string
	Model  string // default model; Request.Model overrides it
	// ThinkingBudget is the default budget of thinking tokens; 0: off. Request.ThinkingBudget
	// overrides it. Anthropic takes it as is; an OpenAI-compatible server gets its dialect's
	// parameter (thinking.go), or nothing when its dialect is unknown.
	ThinkingBudget int
	// Dialect names an OpenAI-compatible server's dialect (DialectOpenAI, ...) where its base
	// URL does not tell it (a proxy in front of it, a test server); "" takes DialectOf(BaseURL).
	Dialect string
	// RequestTimeout bounds the wait for the response headers (and the
	// whole of ListModels); IdleTimeout the silence between two reads of a
	// stream. 0 takes the default, a negative value disables the timeout.
	RequestTimeout, IdleTimeout time.Duration
	// MaxRetries is how often a failed attempt is repeated (429, 5xx and
	// connection errors, only before any output). 0 takes the default,
	// a negative value disables retries.
	MaxRetries int
	// BackoffBase is the first retry's wait, doubled on each further retry
	// (with jitter); MaxBackoff caps every wait, Retry-After included.
	BackoffBase, MaxBackoff time.Duration
	HTTPClient              *http.Client // optional
	// OnLimits, when set, is told the rate-limit headers of every response that carries any
	// (a 429 included), as they arrive: LimitBoard.Record keeps them for the meters.
	OnLimits func(Limits)
}

// ToolSpec describes one tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object, sent as given
}

// Request is one model call.
type Request struct {
	Model string // overrides Config.Model when set
	// System is the system prompt, sent before Messages (which may hold system messages
	// too); apart so that the conversation's messages can be passed on without a copy.
	System string
	// Messages are the conversation, encoded by the adapter of Config.Kind: a turn this
	// provider and model made goes back as its raw bytes, so thinking models' tool loops stay
	// valid and prompt caches keep matching earlier turns.
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int // 0: the server's default (anthropic, which needs one: DefaultMaxTokens)
	// ThinkingBudget > 0 asks for thinking with that many tokens (anthropic; the dialect's
	// parameter for OpenAI-compatible servers), < 0 turns it off, 0 takes
	// Config.ThinkingBudget.
	ThinkingBudget int
	// Cache, when set, keeps this conversation's encoded messages between requests, so the
	// next request encodes only what changed (see Cache).
	Cache *Cache
}

// ToolCall is one complete tool call of an assistant turn.
type ToolCall struct {
	ID, Name, Arguments string // Arguments: the JSON text exactly as streamed
}

// Usage is the token count the server reported for the turn. InputTokens is the whole
// input, cache reads and writes included; they are reported apart so they can be priced apart.
type Usage struct {
	InputTokens, OutputTokens         int64
	CacheReadTokens, CacheWriteTokens int64
	ReasoningTokens                   int64 // part of OutputTokens, where the server says
}

// Status is how a streamed turn ended.
type Status string

const (
	StatusOK            Status = "ok"
	StatusTruncated     Status = "truncated"      // finish_reason "length"
	StatusRefused       Status = "refused"        // finish_reason "content_filter", or a refusal
	StatusProviderError Status = "provider_error" // see Stream
	// StatusContextExceeded: the answer was cut at the model's context window (Anthropic's
	// stop_reason "model_context_window_exceeded", Mistral's finish_reason "model_length").
	// Err is an *Error of KindContextLength, so ContextExceeded(Err) holds.
	StatusContextExceeded Status = "context_exceeded"
	// StatusPaused: Anthropic's stop_reason "pause_turn". The turn is not over: the next
	// request ends with this turn's Raw, unmodified, and the model continues it.
	StatusPaused Status = "paused"
)

// Response is the accumulated assistant turn.
type Response struct {
	Text, Reasoning string
	// ToolCalls are complete calls whose arguments are a JSON object. They
	// are set only when Status is StatusOK; the turn is a tool turn exactly
	// when this is non-empty, whatever FinishReason says.
	ToolCalls []ToolCall
	// InvalidToolCalls must never be executed: arguments that are not a JSON
	// object, a call without a name, or any call of a turn that did not end ok.
	InvalidToolCalls []ToolCall
	FinishReason     string
	Usage            Usage // from the last chunk that carried usage
	Status           Status
	Err              error // why the status is not ok, with the server's message when it sent one
	// Raw is the assistant message exactly as received, assembled from the stream in the
	// provider's own request format (every field, known or not), for Message.Raw; Origin
	// is what made it.
	Raw    json.RawMessage
	Origin Origin
}

// Model is a provider's client, whatever its wire format.
type Model interface {
	Stream(ctx context.Context, req Request, h Handler) Response
	// ListModels is the "Test connection" call: the model ids the server offers.
	ListModels(ctx context.Context) ([]string, error)
}

// Open returns the client for cfg.Kind: "openai" (or "") or "anthropic". It does no I/O.
func Open(cfg Config) (Model, error) {
	switch cfg.Kind {
	case "", KindOpenAI:
		return New(cfg), nil
	case KindAnthropic:
		return NewAnthropic(cfg), nil
	}
	return nil, fmt.Errorf("provider %q: unknown kind %q (want %q or %q)", cfg.Name, cfg.Kind, KindOpenAI, KindAnthropic)
}

// Handler receives deltas as they arrive, on the goroutine that called
// Stream. Nil funcs are skipped. Deltas are only ever delivered once: a
// retry happens only before the first one.
type Handler struct {
	OnText      func(delta string)
	OnReasoning func(delta string)
	OnRetry     func(r Retry) // before waiting to retry
}

// Retry is one retry of a failed attempt, announced before its wait.
type Retry struct {
	Attempt int           // this retry, from 1
	Of      int           // Config.MaxRetries: the retries one call may make
	Wait    time.Duration // before the attempt
	Err     error         // why the last attempt failed (an *Error)
}

// Cause is the failure in a few words: "HTTP 500", "connection refused".
func (r Retry) Cause() string {
	var pe *Error
	if !errors.As(r.Err, &pe) {
		return r.Err.Error()
	}
	switch {
	case pe.Status != 0:
		return fmt.Sprintf("HTTP %d", pe.Status)
	case pe.Kind == KindConnRefused:
		return "connection refused"
	case pe.Kind == KindUnreachable:
		return "the server could not be reached"
	case pe.Kind == KindIncomplete:
		return "the stream broke off"
	case pe.Kind == KindTimeout:
		return "a timeout"
	}
	return pe.Error()
}

// conn is what both wire formats share: the configuration, the words of their errors and
// the retry schedule.
type conn struct {
	cfg        Config
	displayURL string   // BaseURL without credentials, for messages
	key        redactor // the API key, to scrub from foreign text
	apiName    string   // "an OpenAI-compatible API", for KindNotOpenAI
	hint404    string   // what a 404 usually means for this wire format
	// The wire format's streaming endpoint, the headers its every request carries, and the
	// header the key goes in (after keyPrefix), only when there is a key.
	path                 string
	fixed                http.Header
	keyHeader, keyPrefix string
	// sleep waits between retries; tests replace it to see the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// newConn fills the zero values of cfg with the defaults.
func newConn(cfg Config) conn {
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	display := withoutUserinfo(cfg.BaseURL) // even a URL that does not parse
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		u.User = nil
		display = u.String()
	}
	return conn{cfg: cfg, displayURL: display, key: redactor(cfg.APIKey), sleep: sleepCtx,
		apiName: "an OpenAI-compatible API", hint404: "check the base URL; it usually ends in /v1",
		path: "chat/completions", keyHeader: "Authorization", keyPrefix: "Bearer "}
}

// withoutUserinfo drops "user:password@" after the scheme of raw, by its text alone.
func withoutUserinfo(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if at := strings.LastIndex(host, "@"); at >= 0 {
		return scheme + "://" + rest[at+1:]
	}
	return raw
}

func (c *conn) httpClient() *http.Client {
	if c.cfg.HTTPClient != nil {
		return c.cfg.HTTPClient
	}
	return sharedHTTPClient
}

// Client calls one OpenAI-compatible server. It is safe for concurrent use.
type Client struct {
	conn
}

// sharedHTTPClient serves every Client made without Config.HTTPClient, so
// that clients made per turn or per settings change share one connection
// pool (keep-alive) instead of each leaving idle connections behind. It has
// no timeouts of its own: Stream's watchdog owns them.
var sharedHTTPClient = &http.Client{Transport: sharedTransport()}

// sharedTransport is http.DefaultTransport's settings with a write buffer that holds a whole
// request as a tool loop sends it (the tools' schemas alone are several KB): with the default
// 4 KB, every request went out in two or three writes, each a wake-up of the server's reader.
func sharedTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.WriteBufferSize = 64 << 10
	return t
}

// New makes a Client. It does no I/O and is cheap: making one per turn is fine.
func New(cfg Config) *Client {
	return &Client{conn: newConn(cfg)}
}

// Stream sends req and streams the answer, calling h for each delta. Its one error is
// Response.Err:
//
//   - Status ok: Err is nil.
//   - Status truncated or refused: Err says why, with any message the server sent after the
//     finish. Status context_exceeded: Err is an *Error of KindContextLength. Status paused:
//     Err is nil.
//   - Status provider_error: Err is an *Error (errors.As finds it): the request failed after
//     retries, the stream broke, carried an error or ended without a finish, or ctx ended
//     (Kind cancelled, or timeout for a passed deadline, wrapping ctx's error) — or a plain
//     error when req itself is invalid (no model, a message that is not JSON), in which case
//     nothing was sent. The Response still holds what arrived.
func (c *Client) Stream(ctx context.Context, req Request, h Handler) Response {
	model := c.model(req)
	origin := Origin{Provider: c.cfg.Name, Kind: KindOpenAI, Model: model}
	body, err := c.Prepare(req)
	return c.stream(ctx, origin, h, c.read, body, err)
}

// stream sends body to the wire format's endpoint and has read read each attempt's answer,
// attempts made as retry says. A body that could not be prepared (prepErr) is sent nowhere.
func (c *conn) stream(ctx context.Context, origin Origin, h Handler,
	read func(ctx context.Context, x *exchange, origin Origin, h Handler) (Response, error), body *WireBody, prepErr error) Response {
	if prepErr != nil {
		return Response{Status: StatusProviderError, Err: prepErr, Origin: origin}
	}
	return c.retry(ctx, origin, h, func() (Response, error) {
		x, err := c.open(ctx, c.path, body, c.header(body))
		if err != nil {
			return Response{}, err
		}
		defer x.close()
		return read(ctx, x, origin, h)
	})
}

// header is what each request carries: what it accepts, the wire format's own headers, and
// the key, only when there is one (a bearer token, or the Messages API's x-api-key).
func (c *conn) header(body *WireBody) http.Header {
	h := c.fixed.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Accept", accept(body))
	if c.cfg.APIKey != "" {
		h.Set(c.keyHeader, c.keyPrefix+c.cfg.APIKey)
	}
	return h
}

// retry runs attempt until it succeeds or fails for good: an error that is not retryable (a
// retryable one arrives only before any output), no retries left, or ctx ended.
func (c *conn) retry(ctx context.Context, origin Origin, h Handler, attempt func() (Response, error)) Response {
	for n := 0; ; n++ {
		resp, err := attempt()
		if err == nil {
			return resp
		}
		var pe *Error
		if !errors.As(err, &pe) || !pe.retryable || n >= c.cfg.MaxRetries || ctx.Err() != nil {
			// A stream cut after a call's name but before its finish still holds that call:
			// a failed turn's calls are never to be run, whatever the accumulator made of them.
			resp.Status, resp.Err, resp.Origin = StatusProviderError, err, origin
			resp.ToolCalls, resp.InvalidToolCalls = nil, slices.Concat(resp.ToolCalls, resp.InvalidToolCalls)
			return resp
		}
		wait := c.backoff(n, pe.retryAfter)
		if h.OnRetry != nil {
			h.OnRetry(Retry{Attempt: n + 1, Of: c.cfg.MaxRetries, Wait: wait, Err: err})
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Response{Status: StatusProviderError, Err: c.ctxError(ctx), Origin: origin}
		}
	}
}

// Body is the request body Stream sends for req, byte for byte.
func (c *Client) Body(req Request) ([]byte, error) {
	return bodyBytes(c.Prepare(req))
}

// bodyBytes is a prepared body as the bytes it sends.
func bodyBytes(w *WireBody, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}

// Prepare builds the body Stream sends for req, as its parts.
func (c *Client) Prepare(req Request) (*WireBody, error) {
	model := c.model(req)
	origin := Origin{Provider: c.cfg.Name, Kind: KindOpenAI, Model: model}
	units, err := req.Cache.encode(origin, req.Messages, openAIUnits(origin))
	if err != nil {
		return nil, err
	}
	dialect := c.cfg.Dialect
	if dialect == "" {
		dialect = DialectOf(c.cfg.BaseURL)
	}
	var thinking bytes.Buffer
	writeThinking(&thinking, dialect, model, thinkingBudget(req, c.cfg))
	return buildBody(model, units, req, thinking.Bytes())
}

func (c *conn) model(req Request) string {
	if req.Model != "" {
		return req.Model
	}
	return c.cfg.Model
}

// backoff is the wait before retry number attempt+1: the server's
// Retry-After when it sent one, else BackoffBase doubled per attempt with
// jitter; never more than MaxBackoff.
func (c *conn) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := retryAfter
	if d <= 0 {
		d = c.cfg.BackoffBase << min(attempt, 20)
		d = d/2 + rand.N(d/2+1)
	}
	return min(d, c.cfg.MaxBackoff)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// buildBody writes the request JSON by hand so that every message goes out
// exactly as given. extra are fields written after the others (the thinking parameter),
// each with its leading comma.
func buildBody(model string, units []unit, req Request, extra []byte) (*WireBody, error) {
	if model == "" {
		return nil, errors.New("provider: no model configured")
	}
	var head bytes.Buffer
	head.WriteString(`{"model":`)
	writeJSON(&head, model)
	head.WriteString(`,"messages":[`)
	if req.System != "" {
		sys, err := marshalJSON(oaText{Role: "system", Content: req.System})
		if err != nil {
			return nil, err
		}
		head.Write(sys)
		if len(units) > 0 {
			head.WriteByte(',')
		}
	}
	w := &WireBody{parts: make([][]byte, 0, 2*len(units)+2)}
	w.add(head.Bytes())
	for i, u := range units {
		if i > 0 {
			w.add(comma)
		}
		w.add(u.b) // encoded once and kept by the Cache; raw turns validated by the encoder
	}
	var tail bytes.Buffer
	tail.WriteString(`],"stream":true,"stream_options":{"include_usage":true}`)
	tools, err := req.Cache.encodeTools(KindOpenAI, req.Tools, openAITools.write)
	if err != nil {
		return nil, err
	}
	tail.Write(tools)
	if req.MaxTokens > 0 {
		fmt.Fprintf(&tail, `,"max_tokens":%d`, req.MaxTokens)
	}
	tail.Write(extra)
	tail.WriteByte('}')
	w.add(tail.Bytes())
	return w, nil
}

// toolFormat is how a wire format writes the "tools" array of a request (nothing when there
// are none): each tool opens with open, then its name and description are written by str,
// its parameters' schema goes under params (none is an object without properties; invalid
// JSON is an error), and close says what closes it, told whether it is the last.
type toolFormat struct {
	open, params string
	str          func(b *bytes.Buffer, s string)
	close        func(last bool) string
}

// openAITools are Chat Completions functions.
var openAITools = toolFormat{open: `{"type":"function","function":{`, params: "parameters", str: writeJSON,
	close: func(bool) string { return "}}" }}

func (f toolFormat) write(b *bytes.Buffer, tools []ToolSpec) error {
	if len(tools) == 0 {
		return nil
	}
	b.WriteString(`,"tools":[`)
	for i, t := range tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		} else if !json.Valid(params) {
			return fmt.Errorf("provider: parameters of tool %q are not valid JSON", t.Name)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.open + `"name":`)
		f.str(b, t.Name)
		if t.Description != "" {
			b.WriteString(`,"description":`)
			f.str(b, t.Description)
		}
		b.WriteString(`,"` + f.params + `":`)
		b.Write(params)
		b.WriteString(f.close(i == len(tools)-1))
	}
	b.WriteByte(']')
	return nil
}

func writeJSON(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}
