package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Kind classifies why a request to the model server failed.
type Kind string

const (
	KindConnRefused  Kind = "connection_refused" // nothing listens at the base URL
	KindUnreachable  Kind = "unreachable"        // DNS failure, reset or another network error
	KindUnauthorized Kind = "unauthorized"       // 401 or 403
	KindNotFound     Kind = "not_found"          // 404: usually a base URL without /v1
	KindTimeout      Kind = "timeout"            // no answer in RequestTimeout, or a stream idle for IdleTimeout
	KindNotOpenAI    Kind = "not_openai"         // an answer that is not an OpenAI-compatible API's (e.g. HTML)
	KindRateLimited  Kind = "rate_limited"       // 429
	KindHTTPStatus   Kind = "http_status"        // any other non-2xx status
	KindStream       Kind = "stream_error"       // an error object or "event: error" inside the stream
	KindIncomplete   Kind = "incomplete"         // the stream ended before a finish
	KindCancelled    Kind = "cancelled"          // the caller's context was cancelled
	// KindContextLength: the server refused the request because it does not fit in the
	// model's context window (400 context_length_exceeded and its wordings, context.go).
	KindContextLength Kind = "context_length_exceeded"
	// KindImageRejected: the server refused the request because of an image it carried (a
	// format it cannot read, too large, or a model that takes no images; image_errors.go).
	KindImageRejected Kind = "image_rejected"
)

// Error is what Stream and ListModels return when they could not get a
// usable answer. Error() is a message fit to show a person; it never holds
// the API key.
type Error struct {
	Kind    Kind
	Status  int    // HTTP status, 0 when there was none
	URL     string // the base URL, credentials removed
	Code    string // the server's error code, when it sent one
	Message string // the server's own message, when it sent one
	Err     error  // the underlying error, if any

	text       string        // the full message, built once by the constructor
	retryable  bool          // worth another attempt (only before any output)
	retryAfter time.Duration // the server's Retry-After, 0 when none
}

func (e *Error) Error() string { return e.text }

func (e *Error) Unwrap() error { return e.Err }

var (
	errRequestTimeout = errors.New("request timeout")
	errIdleTimeout    = errors.New("stream idle timeout")
)

// redactor removes the API key from text that came from elsewhere (server
// messages, wrapped errors), in case a server echoes it.
type redactor string

func (r redactor) clean(s string) string {
	if len(r) >= 4 {
		s = strings.ReplaceAll(s, string(r), "[redacted]")
	}
	return s
}

func (c *conn) newError(kind Kind, status int, message string, err error) *Error {
	e := &Error{Kind: kind, Status: status, URL: c.displayURL, Message: c.key.clean(message), Err: err}
	var detail string
	if err != nil {
		detail = c.key.clean(err.Error())
	}
	suffix := func(s string) string {
		if s == "" {
			return ""
		}
		return ": " + s
	}
	switch kind {
	case KindConnRefused:
		e.text = "connection refused at " + e.URL
		e.retryable = true
	case KindUnreachable:
		e.text = "could not reach " + e.URL + suffix(detail)
		e.retryable = true
	case KindUnauthorized:
		e.text = fmt.Sprintf("%d %s%s", status, strings.ToLower(http.StatusText(status)), suffix(e.Message))
	case KindNotFound:
		e.text = fmt.Sprintf("404 not found at %s%s (%s)", e.URL, suffix(e.Message), c.hint404)
	case KindTimeout:
		e.text = "timeout: " + e.Message
	case KindNotOpenAI:
		e.text = fmt.Sprintf("the server at %s did not answer like %s (%s)", e.URL, c.apiName, e.Message)
	case KindRateLimited:
		e.text = "429 rate limited" + suffix(e.Message)
		e.retryable = true
	case KindHTTPStatus:
		text := strings.ToLower(http.StatusText(status))
		if status == 529 {
			text = "overloaded" // Anthropic's status, unknown to net/http
		}
		e.text = fmt.Sprintf("%d %s%s", status, text, suffix(e.Message))
		e.retryable = status >= 500
	case KindStream:
		e.text = "the server reported an error in the stream" + suffix(e.Message)
	case KindIncomplete:
		e.text = "the stream from " + e.URL + " ended before the answer was finished" + suffix(detail)
		e.retryable = true // only used before any output arrived
	case KindCancelled:
		e.text = "cancelled"
	case KindContextLength:
		e.text = "the request does not fit in the model's context window" + suffix(e.Message)
	case KindImageRejected:
		e.text = fmt.Sprintf("%d the server refused an image%s", status, suffix(e.Message))
	default:
		e.text = string(kind) + suffix(e.Message) + suffix(detail)
	}
	return e
}

// transportError classifies an error from sending a request or reading its
// body. cause is context.Cause of the attempt's context.
func (c *conn) transportError(err, cause error, parent context.Context) *Error {
	switch {
	case errors.Is(cause, errRequestTimeout):
		return c.newError(KindTimeout, 0, fmt.Sprintf("no answer from %s within %s", c.displayURL, c.cfg.RequestTimeout), err)
	case errors.Is(cause, errIdleTimeout):
		return c.newError(KindTimeout, 0, fmt.Sprintf("the stream from %s was idle for %s", c.displayURL, c.cfg.IdleTimeout), err)
	case parent.Err() != nil:
		return c.ctxError(parent)
	case errors.Is(err, syscall.ECONNREFUSED):
		return c.newError(KindConnRefused, 0, "", err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return c.newError(KindTimeout, 0, fmt.Sprintf("no answer from %s", c.displayURL), err)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		e := c.newError(KindUnreachable, 0, "", err)
		e.retryable = false // a name that does not resolve will not resolve in a second
		return e
	}
	return c.newError(KindUnreachable, 0, "", err)
}

// ctxError reports the end of the caller's context: a passed deadline is a
// timeout (the caller was patient for as long as it meant to be), anything
// else a cancel. Either wraps ctx's cause, for errors.Is.
func (c *conn) ctxError(ctx context.Context) *Error {
	cause := context.Cause(ctx)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return c.newError(KindTimeout, 0, "no answer from "+c.displayURL+" in time", cause)
	}
	return c.newError(KindCancelled, 0, "", cause)
}

// statusError classifies a non-2xx answer from its status and body.
func (c *conn) statusError(res *http.Response, body []byte) *Error {
	msg, code := serverMessage(res.Header.Get("Content-Type"), body)
	var e *Error
	switch s := res.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e = c.newError(KindUnauthorized, s, msg, nil)
	case (s == http.StatusBadRequest || s == http.StatusRequestEntityTooLarge || s == http.StatusUnprocessableEntity ||
		s == http.StatusNotFound) && isImageRejection(code, msg):
		// 404: OpenRouter's "No endpoints found that support image input".
		e = c.newError(KindImageRejected, s, msg, nil)
	case s == http.StatusNotFound:
		e = c.newError(KindNotFound, s, msg, nil)
	case s == http.StatusTooManyRequests:
		e = c.newError(KindRateLimited, s, msg, nil)
	case (s == http.StatusBadRequest || s == http.StatusRequestEntityTooLarge || s >= 500) &&
		(isContextLength(code, msg) || isContextLength(errorType(body), "")):
		e = c.newError(KindContextLength, s, msg, nil)
	default:
		e = c.newError(KindHTTPStatus, s, msg, nil)
	}
	e.Code = code
	e.retryAfter = retryAfter(res.Header, time.Now())
	return e
}

// serverMessage pulls a readable message out of an error body: OpenAI's
// {"error":{"message","code"}}, {"error":"..."}, {"message"} or {"detail"},
// or a short plain-text body. HTML pages give no message.
func serverMessage(contentType string, body []byte) (msg, code string) {
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "{") {
		var w struct {
			Error   json.RawMessage `json:"error"`
			Message string          `json:"message"`
			Detail  json.RawMessage `json:"detail"`
		}
		if json.Unmarshal(body, &w) == nil {
			if m, c := errorObjectMessage(w.Error); m != "" {
				return m, c
			}
			if w.Message != "" {
				return w.Message, ""
			}
			var d string
			if json.Unmarshal(w.Detail, &d) == nil && d != "" {
				return d, ""
			}
		}
	}
	if strings.Contains(strings.ToLower(contentType), "html") || strings.HasPrefix(trimmed, "<") {
		return "", ""
	}
	return shorten(trimmed, 300), ""
}

// errorType is the "type" of an error object ({"error":{"type"}}), which llama.cpp uses
// for what OpenAI puts in "code".
func errorType(body []byte) string {
	var w struct {
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &w) != nil {
		return ""
	}
	return w.Error.Type
}

// errorObjectMessage reads an "error" value: an object with message and
// code, or a bare string.
func errorObjectMessage(raw json.RawMessage) (msg, code string) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, ""
	}
	var o struct {
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return shorten(string(raw), 300), ""
	}
	code = strings.Trim(string(o.Code), `"`)
	if code == "null" {
		code = ""
	}
	if o.Message == "" {
		o.Message = shorten(string(raw), 300)
	}
	return o.Message, code
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// retryAfter reads retry-after-ms (OpenAI) or Retry-After in seconds or as
// an HTTP date; 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
