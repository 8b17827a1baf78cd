package provider

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
)

// Anthropic calls Anthropic's Messages API natively (Config.Kind "anthropic"): streaming with
// thinking and its signatures, tool_use and tool_result blocks, prompt caching. It is safe
// for concurrent use.
//
// As for the OpenAI-compatible client, the body is written here and sent with net/http
// (request.go), with the anthropic-version header; the key goes in the x-api-key header only.
// The stream is framed by the shared SSE loop (exchange.go) and its events are read here.
type Anthropic struct {
	conn
}

// NewAnthropic makes a client for cfg (BaseURL: the API root without /v1). It does no I/O.
func NewAnthropic(cfg Config) *Anthropic {
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.anthropic.com"
	}
	c := &Anthropic{conn: newConn(cfg)}
	c.apiName, c.hint404 = "Anthropic's Messages API", "check the base URL; it is the API root, without /v1"
	// Every request names the API version; the key goes in x-api-key only.
	c.path, c.fixed = "v1/messages", http.Header{"Anthropic-Version": {anthropicVersion}}
	c.keyHeader, c.keyPrefix = "X-Api-Key", ""
	return c
}

// Stream sends req to POST /v1/messages and streams the answer; the contract is
// Client.Stream's. Tool calls of a turn cut by an error event never reach ToolCalls.
func (c *Anthropic) Stream(ctx context.Context, req Request, h Handler) Response {
	origin := Origin{Provider: c.cfg.Name, Kind: KindAnthropic, Model: c.model(req)}
	body, err := c.Prepare(req)
	return c.stream(ctx, origin, h, c.read, body, err)
}

// Body is the request body Stream sends for req, byte for byte.
func (c *Anthropic) Body(req Request) ([]byte, error) {
	return bodyBytes(c.Prepare(req))
}

// Prepare builds the body Stream sends for req, as its parts.
func (c *Anthropic) Prepare(req Request) (*WireBody, error) {
	model := c.model(req)
	budget := req.ThinkingBudget
	if budget == 0 {
		budget = c.cfg.ThinkingBudget
	}
	return anthropicBody(model, req, Origin{Provider: c.cfg.Name, Kind: KindAnthropic, Model: model}, budget)
}

// anthropicVersion is the Messages API version every request names (anthropic-version).
const anthropicVersion = "2023-06-01"

// read reads one attempt's answer: an event stream of the Messages API.
func (c *Anthropic) read(ctx context.Context, x *exchange, origin Origin, h Handler) (Response, error) {
	if mt, _, _ := mime.ParseMediaType(x.res.Header.Get("Content-Type")); mt != "text/event-stream" && !x.looksLikeSSE() {
		return Response{}, c.newError(KindNotOpenAI, 0, got(x.res.Header.Get("Content-Type")), nil)
	}
	acc := &antAcc{h: h, origin: origin}
	parseErr, readErr := x.events(true, acc.event)
	if acc.stopped {
		x.drain()
	}
	return c.result(ctx, x.actx, acc, parseErr, readErr)
}

// result decides how the attempt ended from what the accumulator saw.
func (c *Anthropic) result(ctx, actx context.Context, acc *antAcc, parseErr, readErr error) (Response, error) {
	resp := acc.response()
	if e := c.endedFirst(ctx, parseErr, "an event"); e != nil {
		return resp, e
	}
	switch {
	case acc.errMsg != "":
		e := c.streamError(acc.errType, acc.errMsg)
		// Overloaded before any output is worth another attempt, like a 529.
		e.retryable = !acc.output && (acc.errType == "overloaded_error" || acc.errType == "api_error")
		return resp, e
	case readErr != nil && !acc.stopped:
		return resp, c.readCut(ctx, actx, readErr, acc.output)
	case !acc.stopped:
		return resp, c.incomplete(acc.output)
	case resp.Status == StatusRefused:
		resp.Err = errors.New("the model refused to answer")
	case resp.Status == StatusTruncated:
		resp.Err = errors.New("the answer reached the output token limit")
	case resp.Status == StatusContextExceeded:
		resp.Err = c.newError(KindContextLength, 0, "the answer reached the model's context window (stop_reason model_context_window_exceeded); its tool calls were not run", nil)
	case resp.Status == StatusProviderError:
		return resp, c.newError(KindStream, 0, fmt.Sprintf("stop_reason %q is not one Loopdesk knows; the turn's tool calls were not run", acc.stop), nil)
	}
	return resp, nil
}

// ListModels asks GET /v1/models for the model ids the server offers.
func (c *Anthropic) ListModels(ctx context.Context) ([]string, error) {
	return c.listModels(ctx, "v1/models", c.header(nil), false, "got no model list")
}
