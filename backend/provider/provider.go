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
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Defaults for the zero values of Config.
const (
	DefaultRequestTimeout = 5 * time.Minute // local models may think long before the first byte
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxRetries     = 2
	DefaultBackoffBase    = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
)

// Config says where the model server is and how patient to be.
type Config struct {
	BaseURL string // e.g. http://localhost:11434/v1
	APIKey  string // sent as a bearer token; never logged or put in an error
	Model   string // default model; Request.Model overrides it
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
	// Name is the configured provider's name and Kind its wire format ("openai", the
	// default, or "anthropic"), for Open; ThinkingBudget the extended-thinking budget in
	// tokens (0: off) where the kind has one.
	Name, Kind     string
	ThinkingBudget int
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
	// Messages are wire-format chat messages, sent byte for byte as given so
	// that provider prompt caches keep matching earlier turns.
	Messages  []json.RawMessage
	Tools     []ToolSpec
	MaxTokens int // 0: the server's default
}

// ToolCall is one complete tool call of an assistant turn.
type ToolCall struct {
	ID, Name, Arguments string // Arguments: the JSON text exactly as streamed
}

// Usage is the token count the server reported for the turn.
type Usage struct {
	InputTokens, OutputTokens, CachedTokens int64
}

// Status is how a streamed turn ended.
type Status string

const (
	StatusOK            Status = "ok"
	StatusTruncated     Status = "truncated"      // finish_reason "length"
	StatusRefused       Status = "refused"        // finish_reason "content_filter", or a refusal
	StatusProviderError Status = "provider_error" // see Stream
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
}

// Handler receives deltas as they arrive, on the goroutine that called
// Stream. Nil funcs are skipped. Deltas are only ever delivered once: a
// retry happens only before the first one.
type Handler struct {
	OnText      func(delta string)
	OnReasoning func(delta string)
	OnRetry     func(attempt int, wait time.Duration, err error) // before waiting to retry
}

// Client calls one OpenAI-compatible server. It is safe for concurrent use.
type Client struct {
	cfg        Config
	oa         openai.Client
	displayURL string   // BaseURL without credentials, for messages
	key        redactor // the API key, to scrub from foreign text
	// sleep waits between retries; tests replace it to see the waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// sharedHTTPClient serves every Client made without Config.HTTPClient, so
// that clients made per turn or per settings change share one connection
// pool (keep-alive) instead of each leaving idle connections behind. It has
// no timeouts of its own: Stream's watchdog owns them.
var sharedHTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// New makes a Client. It does no I/O and is cheap: making one per turn is fine.
func New(cfg Config) *Client {
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
	hc := cfg.HTTPClient
	if hc == nil {
		hc = sharedHTTPClient
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	display := base
	if u, err := url.Parse(base); err == nil {
		u.User = nil
		display = u.String()
	}
	c := &Client{cfg: cfg, displayURL: display, key: redactor(cfg.APIKey), sleep: sleepCtx}
	c.oa = openai.NewClient(
		option.WithBaseURL(base),
		// Explicit, so OPENAI_* variables of the environment never leak in.
		option.WithAPIKey(cfg.APIKey),
		option.WithAdminAPIKey(""),
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // Stream retries itself: only before output, with its own backoff
	)
	return c
}

// Stream sends req and streams the answer, calling h for each delta. Its one error is
// Response.Err:
//
//   - Status ok: Err is nil.
//   - Status truncated or refused: Err says why, with any message the server sent after the
//     finish.
//   - Status provider_error: Err is an *Error (errors.As finds it): the request failed after
//     retries, the stream broke, carried an error or ended without a finish, or ctx ended
//     (Kind cancelled, or timeout for a passed deadline, wrapping ctx's error) — or a plain
//     error when req itself is invalid (no model, a message that is not JSON), in which case
//     nothing was sent. The Response still holds what arrived.
func (c *Client) Stream(ctx context.Context, req Request, h Handler) Response {
	body, err := buildBody(c.model(req), req)
	if err != nil {
		return Response{Status: StatusProviderError, Err: err}
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, body, h)
		if err == nil {
			return resp
		}
		var pe *Error
		if !errors.As(err, &pe) || !pe.retryable || attempt >= c.cfg.MaxRetries || ctx.Err() != nil {
			resp.Status, resp.Err = StatusProviderError, err
			return resp
		}
		wait := c.backoff(attempt, pe.retryAfter)
		if h.OnRetry != nil {
			h.OnRetry(attempt+1, wait, err)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Response{Status: StatusProviderError, Err: c.ctxError(ctx)}
		}
	}
}

func (c *Client) model(req Request) string {
	if req.Model != "" {
		return req.Model
	}
	return c.cfg.Model
}

// backoff is the wait before retry number attempt+1: the server's
// Retry-After when it sent one, else BackoffBase doubled per attempt with
// jitter; never more than MaxBackoff.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
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
// exactly as given.
func buildBody(model string, req Request) ([]byte, error) {
	if model == "" {
		return nil, errors.New("provider: no model configured")
	}
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	writeJSON(&b, model)
	b.WriteString(`,"messages":[`)
	for i, m := range req.Messages {
		if !json.Valid(m) {
			return nil, fmt.Errorf("provider: message %d is not valid JSON", i)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteString(`],"stream":true,"stream_options":{"include_usage":true}`)
	if len(req.Tools) > 0 {
		b.WriteString(`,"tools":[`)
		for i, t := range req.Tools {
			params := t.Parameters
			if len(bytes.TrimSpace(params)) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			} else if !json.Valid(params) {
				return nil, fmt.Errorf("provider: parameters of tool %q are not valid JSON", t.Name)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"function","function":{"name":`)
			writeJSON(&b, t.Name)
			if t.Description != "" {
				b.WriteString(`,"description":`)
				writeJSON(&b, t.Description)
			}
			b.WriteString(`,"parameters":`)
			b.Write(params)
			b.WriteString(`}}`)
		}
		b.WriteByte(']')
	}
	if req.MaxTokens > 0 {
		fmt.Fprintf(&b, `,"max_tokens":%d`, req.MaxTokens)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}
