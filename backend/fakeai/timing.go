package fakeai

import (
	"net/http"
	"sync"
	"time"
)

// Timing is when the server had one /v1 request whole and when it sent its first response
// byte, so a measurement through the app can tell the app's own time from the fake model's:
// ServerMS, from the last request byte read to the first response byte written, is the
// server's work on that request (decoding it, checking it, choosing the reply). Reading the
// body overlaps with the client writing it, so that part is left to the client's side.
type Timing struct {
	Path string `json:"path"`
	// BodyBytes is the request body's length.
	BodyBytes int `json:"body_bytes"`
	// Started, BodyRead and FirstByte are Unix times in milliseconds (fractional): the
	// handler started (headers read), the body was read whole, the first response byte
	// (the status line and headers, flushed) was written. FirstByte is 0 when nothing was.
	Started   float64 `json:"started_unix_ms"`
	BodyRead  float64 `json:"body_read_unix_ms"`
	FirstByte float64 `json:"first_byte_unix_ms"`
	// ServerMS is FirstByte - BodyRead (0 when nothing was written).
	ServerMS float64 `json:"server_ms"`
}

func unixMS(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// Timings returns the timing of every /v1 request received so far, in order.
func (s *Server) Timings() []Timing {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Timing, len(s.timings))
	for i, t := range s.timings {
		out[i] = t.timing()
	}
	return out
}

// requestTiming is filled in as the request is served; the writer sets first once.
type requestTiming struct {
	path          string
	bytes         int
	started, read time.Time
	mu            sync.Mutex
	first         time.Time
}

func (t *requestTiming) timing() Timing {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := Timing{Path: t.path, BodyBytes: t.bytes, Started: unixMS(t.started), BodyRead: unixMS(t.read)}
	if !t.first.IsZero() {
		out.FirstByte = unixMS(t.first)
		out.ServerMS = float64(t.first.Sub(t.read).Microseconds()) / 1e3
	}
	return out
}

func (t *requestTiming) mark() {
	t.mu.Lock()
	if t.first.IsZero() {
		t.first = time.Now()
	}
	t.mu.Unlock()
}

// timedWriter notes the first byte the handler writes (headers included) and keeps
// http.Flusher, which the streaming replies need.
type timedWriter struct {
	http.ResponseWriter
	t *requestTiming
}

func (w timedWriter) WriteHeader(code int) {
	w.t.mark()
	w.ResponseWriter.WriteHeader(code)
}

func (w timedWriter) Write(b []byte) (int, error) {
	w.t.mark()
	return w.ResponseWriter.Write(b)
}

func (w timedWriter) Flush() {
	w.t.mark()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
