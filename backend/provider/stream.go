package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// watchdog cancels an attempt when a deadline passes: first the wait for
// headers, then each silence between two reads of the body. Only the
// goroutine running the attempt touches it; the timer's func only cancels.
type watchdog struct {
	cancel context.CancelCauseFunc
	t      *time.Timer
	d      time.Duration
}

func (w *watchdog) arm(d time.Duration, cause error) {
	w.stop()
	w.d = d
	if d > 0 {
		w.t = time.AfterFunc(d, func() { w.cancel(cause) })
	}
}

func (w *watchdog) kick() {
	if w.t != nil {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	if w.t != nil {
		w.t.Stop()
		w.t = nil
	}
}

// idleReader restarts the idle watchdog on every read that brought bytes.
type idleReader struct {
	r  io.Reader
	c  io.Closer
	wd *watchdog
}

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.wd.kick()
	}
	return n, err
}

func (i *idleReader) Close() error { return i.c.Close() }

// read reads one attempt's answer to the end: an event stream, or a whole completion from a
// server that ignored "stream": true.
func (c *Client) read(ctx context.Context, x *exchange, origin Origin, h Handler) (Response, error) {
	acc := &accumulator{h: h, origin: origin}
	ct := x.res.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "text/event-stream":
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return c.completion(ctx, x.actx, x.br, acc)
	case !x.looksLikeSSE(): // some proxies mislabel streams; trust a body that looks like SSE
		return Response{}, c.notOpenAI(got(ct))
	}
	parseErr, readErr := x.events(false, acc.event)
	if acc.sawDone {
		x.drain()
	}
	return c.result(ctx, x.actx, acc, parseErr, readErr)
}

// completion reads a non-streamed answer from a server that ignored
// "stream": true.
func (c *Client) completion(ctx, actx context.Context, r io.Reader, acc *accumulator) (Response, error) {
	b, err := io.ReadAll(io.LimitReader(r, 32<<20))
	if err != nil {
		return c.result(ctx, actx, acc, nil, err)
	}
	var w wireChunk
	if err := json.Unmarshal(b, &w); err != nil {
		return Response{}, c.notOpenAI("got JSON that does not parse")
	}
	if m, code := errorObjectMessage(w.Error); m != "" {
		return acc.response(), c.streamError(code, m)
	}
	if len(w.Choices) == 0 {
		return Response{}, c.notOpenAI("got JSON without choices")
	}
	acc.chunk(&w)
	acc.sawDone = true
	return c.result(ctx, actx, acc, nil, nil)
}

// result decides how the attempt ended from what the accumulator saw.
func (c *Client) result(ctx, actx context.Context, acc *accumulator, parseErr, readErr error) (Response, error) {
	resp := acc.response()
	if e := c.endedFirst(ctx, parseErr, "a chunk"); e != nil {
		return resp, e
	}
	switch {
	case readErr != nil && !acc.finished:
		return resp, c.readCut(ctx, actx, readErr, acc.output)
	case acc.streamErr != "":
		e := c.streamError(acc.errCode, acc.streamErr)
		if resp.Status == StatusTruncated || resp.Status == StatusRefused {
			resp.Err = e // the finish came first; keep the server's later word
			return resp, nil
		}
		return resp, e
	case !acc.finished && !acc.sawDone:
		return resp, c.incomplete(acc.output)
	case resp.Status == StatusProviderError:
		return resp, c.newError(KindStream, 0, finishMessage(acc.finish), nil)
	case resp.Status == StatusContextExceeded:
		resp.Err = c.newError(KindContextLength, 0, fmt.Sprintf("the answer reached the model's context window (finish_reason %q); its tool calls were not run", acc.finish), nil)
	case resp.Status == StatusRefused && acc.refusal.Len() > 0:
		resp.Err = fmt.Errorf("the model refused: %s", acc.refusal.String())
	case resp.Status == StatusRefused:
		resp.Err = errors.New("the answer was stopped by a content filter")
	case resp.Status == StatusTruncated:
		resp.Err = errors.New("the answer reached the output token limit")
	}
	return resp, nil
}

// notOpenAI reports an answer that is not an OpenAI-compatible API's; what
// says what came instead ("got text/html").
func (c *Client) notOpenAI(what string) *Error {
	return c.newError(KindNotOpenAI, 0, what, nil)
}

// got names a Content-Type for notOpenAI.
func got(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return "got " + mt
	}
	if contentType == "" {
		return "got no content type"
	}
	return "got " + contentType
}

// ListModels asks GET /models for the model ids the server offers. It is
// the "Test connection" call: its errors say plainly what went wrong.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	return c.listModels(ctx, "models", c.header(nil), true, "got JSON without a model list")
}

// listModels asks GET path for the model ids the server offers, with header. sayType: a body
// that is not a JSON object is named by its Content-Type ("got text/html"); noList is what a
// body without a model list is called.
func (c *conn) listModels(ctx context.Context, path string, header http.Header, sayType bool, noList string) ([]string, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := &watchdog{cancel: cancel}
	defer wd.stop()
	res, err := c.send(ctx, actx, wd, http.MethodGet, path, nil, header)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, c.transportError(err, context.Cause(actx), ctx)
	}
	if sayType && !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return nil, c.newError(KindNotOpenAI, 0, got(res.Header.Get("Content-Type")), nil)
	}
	var l struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Data == nil {
		return nil, c.newError(KindNotOpenAI, 0, noList, nil)
	}
	ids := make([]string, 0, len(l.Data))
	for _, m := range l.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// streamError is an error object the server sent instead of (or inside) its answer, with its
// code kept.
func (c *conn) streamError(code, message string) *Error {
	e := c.newError(streamErrorKind(code, message), 0, message, nil)
	e.Code = code
	return e
}

// readCut is a stream whose read failed before its end: a connection lost mid-answer is an
// incomplete answer; retryable only before any output.
func (c *conn) readCut(ctx, actx context.Context, readErr error, output bool) *Error {
	e := c.transportError(readErr, context.Cause(actx), ctx)
	if e.Kind == KindUnreachable {
		e = c.newError(KindIncomplete, 0, "", readErr)
	}
	e.retryable = e.retryable && !output
	return e
}

// endedFirst is what ends an attempt whatever the stream said: the caller's end (ctx), then
// a piece of the stream (what: "a chunk") that is not JSON. nil when neither happened.
func (c *conn) endedFirst(ctx context.Context, parseErr error, what string) *Error {
	switch {
	case ctx.Err() != nil:
		return c.ctxError(ctx)
	case parseErr != nil:
		return c.newError(KindStream, 0, what+" that is not JSON: "+parseErr.Error(), nil)
	}
	return nil
}

// incomplete is a stream that ended without its end; retryable only before any output.
func (c *conn) incomplete(output bool) *Error {
	e := c.newError(KindIncomplete, 0, "", nil)
	e.retryable = !output
	return e
}

// streamErrorKind classifies an error object sent inside a stream (OpenRouter sends a
// provider's "maximum context length" that way).
func streamErrorKind(code, message string) Kind {
	if isContextLength(code, message) {
		return KindContextLength
	}
	return KindStream
}
