package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// UserAgent is the User-Agent of every request to a model server. The cli package adds the
// build's version to it at start-up (its init), before any request.
var UserAgent = "Loopdesk"

// do sends one request to the server with net/http: path is resolved against the base URL
// (the base URL's path with a slash added, as the SDKs resolve it), header carries the
// credentials and what the wire format asks for, and body, when there is one, goes out as
// JSON with its length (never chunked: some servers refuse that).
//
// The SDKs' clients are not used to send it (doc.go, "Requests"): every body is written
// here, retries and timeouts are Stream's own, and each adapter decodes the stream with its
// SDK's SSE decoder. What a client added on top, this does: the base URL, the headers, and
// the credentials kept on their origin. A redirect to another scheme, host or port is
// refused, so the key (in Authorization or x-api-key; net/http drops only the former on
// its own) never leaves for a server it was not given to.
func (c *conn) do(ctx context.Context, method, path string, body *WireBody, header http.Header) (*http.Response, error) {
	base, err := url.Parse(c.cfg.BaseURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself, which may hold a password
		}
		return nil, fmt.Errorf("the base URL is not a URL: %w", err)
	}
	if base.Scheme != "http" && base.Scheme != "https" {
		return nil, fmt.Errorf("base URL %s: want http:// or https://", c.displayURL)
	}
	if base.Path != "" && !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	u, err := base.Parse(strings.TrimLeft(path, "/"))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(body.Len())
		req.GetBody = body.readCloser
		req.Body, _ = body.readCloser()
	}
	hc := *c.httpClient() // a copy, to guard its redirects without touching the caller's
	hc.CheckRedirect = sameOrigin(hc.CheckRedirect)
	return hc.Do(req)
}

// send makes one request with header and returns the response with its headers read, or the
// error: a transport error (the watchdog's timeouts and the caller's end told apart), or the
// server's status with its message. The watchdog then guards the body.
func (c *conn) send(ctx, actx context.Context, wd *watchdog, method, path string, body *WireBody, header http.Header) (*http.Response, error) {
	wd.arm(c.cfg.RequestTimeout, errRequestTimeout)
	res, err := c.do(actx, method, path, body, header)
	if err != nil || res == nil {
		if err == nil {
			err = errors.New("no response")
		}
		if res != nil {
			res.Body.Close()
		}
		return nil, c.transportError(err, context.Cause(actx), ctx)
	}
	if c.cfg.OnLimits != nil {
		if l, ok := LimitsOf(c.cfg.Name, res.Header, time.Now()); ok {
			c.cfg.OnLimits(l)
		}
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return nil, c.statusError(res, b)
	}
	return res, nil
}

// errOtherOrigin refuses a redirect that would take the request's credentials elsewhere.
var errOtherOrigin = errors.New("the server redirected to another origin; the request was not sent there")

// sameOrigin lets a redirect through only to the first request's scheme, host and port, then
// applies next (net/http's default when nil: at most 10 redirects).
func sameOrigin(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			return errOtherOrigin
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// accept is what a request asks for: a stream for a model call (it has a body), JSON otherwise.
func accept(body *WireBody) string {
	if body != nil {
		return "text/event-stream"
	}
	return "application/json"
}
