package provider

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"time"
)

// exchange is one request whose response body is being read, behind the watchdog that ends
// it when the server goes quiet: what both wire formats share before their events differ.
type exchange struct {
	actx   context.Context
	cancel context.CancelCauseFunc
	wd     *watchdog
	res    *http.Response
	br     *bufio.Reader
}

// open sends body to path and arms the idle watchdog over the response body. The caller must
// close the exchange. Errors are the request's (*Error), with nothing left open.
func (c *conn) open(ctx context.Context, path string, body *WireBody, header http.Header) (*exchange, error) {
	actx, cancel := context.WithCancelCause(ctx)
	wd := &watchdog{cancel: cancel}
	res, err := c.send(ctx, actx, wd, http.MethodPost, path, body, header)
	if err != nil {
		wd.stop()
		cancel(nil)
		return nil, err
	}
	wd.arm(c.cfg.IdleTimeout, errIdleTimeout)
	br := bufio.NewReader(&idleReader{r: res.Body, c: res.Body, wd: wd})
	return &exchange{actx: actx, cancel: cancel, wd: wd, res: res, br: br}, nil
}

// close ends the exchange: the body, then the watchdog, then its context.
func (x *exchange) close() {
	x.res.Body.Close()
	x.wd.stop()
	x.cancel(nil)
}

// looksLikeSSE reports whether the body starts the way an event stream does, for servers and
// proxies that label a stream with another content type.
func (x *exchange) looksLikeSSE() bool {
	head, _ := x.br.Peek(6)
	return bytes.HasPrefix(head, []byte("data:")) || bytes.HasPrefix(head, []byte(":")) || bytes.HasPrefix(head, []byte("event:"))
}

// events hands each server-sent event to on until on says stop, on fails (parseErr) or the
// body ends (readErr, nil at a clean end). An event's data is its data lines, each followed
// by a newline; an event with no data is skipped unless bare is set and it has a type
// (Anthropic's wire names every event; OpenAI-compatible servers send data only). A last
// event that the body ends without a blank line after is still handed on. A line may be up
// to 32 MB (a tool call's arguments can be long).
func (x *exchange) events(bare bool, on func(typ string, data []byte) (stop bool, err error)) (parseErr, readErr error) {
	scn := bufio.NewScanner(x.br)
	scn.Buffer(nil, bufio.MaxScanTokenSize<<9)
	event, data := "", []byte(nil)
	ready := func() bool { return len(data) > 0 || (bare && event != "") }
	for scn.Scan() {
		line := scn.Bytes()
		if len(line) > 0 {
			name, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(name) {
			case "event":
				event = string(value)
			case "data":
				data = append(append(data, value...), '\n')
			}
			continue
		}
		if ready() {
			stop, err := on(event, data)
			if err != nil || stop {
				return err, nil
			}
		}
		event, data = "", nil // a new slice each event: on may keep what it was given
	}
	if err := scn.Err(); err != nil {
		return nil, err
	}
	if ready() {
		_, err := on(event, data)
		return err, nil
	}
	return nil, nil
}

// drain reads what is left of a body whose stream has ended, so the connection can be
// reused, but never waits long on a server that holds it open after its last event.
func (x *exchange) drain() {
	x.wd.arm(250*time.Millisecond, errIdleTimeout)
	_, _ = io.Copy(io.Discard, io.LimitReader(x.br, 64<<10))
}
