package fakeai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request is one HTTP request the server received, kept whole so tests can
// assert on what the app sent (the Authorization header included).
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// requestJSON is Request's wire form for GET /_fake/requests: the body as a
// string, which a Node test can JSON.parse.
type requestJSON struct {
	Method string      `json:"method"`
	Path   string      `json:"path"`
	Header http.Header `json:"header"`
	Body   string      `json:"body"`
}

// MarshalJSON writes the body as a string rather than base64.
func (r Request) MarshalJSON() ([]byte, error) {
	return json.Marshal(requestJSON{r.Method, r.Path, r.Header, string(r.Body)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Request) UnmarshalJSON(b []byte) error {
	var w requestJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Request{w.Method, w.Path, w.Header, []byte(w.Body)}
	return nil
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes /v1 endpoints answer 401 with an OpenAI-style error unless
// the request carries "Authorization: Bearer key".
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithDelay sets the default pause before each streamed delta.
func WithDelay(d time.Duration) Option { return func(s *Server) { s.delay = d } }

// WithAddr listens on addr instead of 127.0.0.1:0.
func WithAddr(addr string) Option { return func(s *Server) { s.addr = addr } }

// Server is a scripted OpenAI-compatible server. It is safe for concurrent use.
type Server struct {
	addr   string
	apiKey string
	delay  time.Duration

	ln   net.Listener
	srv  *http.Server
	done chan struct{} // closed by Close: wakes stalled handlers
	wg   sync.WaitGroup

	mu       sync.Mutex
	queue    []Reply
	requests []Request
	closed   bool
	nextID   int
	// contextLimit is the fake model's window in tokens (context.go); 0: none.
	contextLimit int
	// sent is what dialect replies sent with each tool call id (dialect.go).
	sent map[string]sentTurn
	// anthropic is the state of the fake Messages API (anthropic.go).
	anthropic anthropicState
	// imageRefusal says which images requests may not carry (images.go).
	imageRefusal ImageRefusal
	// routes are the queues of conversations told apart by a marker (routes.go).
	routes []route
	// timings has one entry per /v1 request, in order (timing.go).
	timings []*requestTiming
}

// Start listens on loopback (127.0.0.1:0 unless WithAddr) and serves until Close.
func Start(opts ...Option) (*Server, error) {
	s := &Server{addr: "127.0.0.1:0", done: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("fakeai: listen on %s: %w", s.addr, err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// URL is the base URL clients use, ending in /v1.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Close stops the server, ends stalled streams and waits for every handler.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	_ = s.srv.Close()
	s.wg.Wait()
}

// Enqueue appends replies; each POST /v1/chat/completions takes the next one.
// With the queue empty the server echoes the last user message.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Requests returns a copy of every /v1 request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = Request{r.Method, r.Path, r.Header.Clone(), append([]byte(nil), r.Body...)}
	}
	return out
}

// Pending reports how many scripted replies are still queued.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Reset forgets queued replies and recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = nil
	s.routes = nil
	s.requests = nil
	s.timings = nil
	s.sent = nil
	s.anthropic = anthropicState{}
	s.imageRefusal = ImageRefusal{}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "fakeai is closing", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1) // under mu, so never after Close started waiting
	s.mu.Unlock()
	defer s.wg.Done()
	started := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/_fake/") {
		s.control(w, r, body)
		return
	}
	t := &requestTiming{path: r.URL.Path, bytes: len(body), started: started, read: time.Now()}
	w = timedWriter{w, t}
	s.mu.Lock()
	s.requests = append(s.requests, Request{r.Method, r.URL.Path, r.Header.Clone(), body})
	s.timings = append(s.timings, t)
	s.mu.Unlock()

	if r.URL.Path == "/v1/messages" {
		// Anthropic's key goes in x-api-key only.
		if s.apiKey != "" && (r.Header.Get("x-api-key") != s.apiKey || r.Header.Get("Authorization") != "") {
			writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
			return
		}
		if r.Method == http.MethodPost {
			s.messages(w, r, body)
			return
		}
	}
	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey && r.Header.Get("x-api-key") != s.apiKey {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","created":1700000000,"owned_by":"fakeai"}]}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r, body)
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path), "invalid_request_error", "unknown_url")
	}
}

// next pops the next scripted reply, or nil when the queue is empty.
func (s *Server) next() (*Reply, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	if len(s.queue) == 0 {
		return nil, s.nextID
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	return &r, s.nextID
}

func (s *Server) control(w http.ResponseWriter, r *http.Request, body []byte) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/_fake/enqueue":
		var replies []Reply
		if err := json.Unmarshal(body, &replies); err != nil {
			http.Error(w, "enqueue wants a JSON array of replies: "+err.Error(), http.StatusBadRequest)
			return
		}
		for i, rep := range replies {
			if err := rep.validate(); err != nil {
				http.Error(w, fmt.Sprintf("reply %d: %v", i, err), http.StatusBadRequest)
				return
			}
		}
		if m := r.URL.Query().Get("for"); m != "" {
			s.EnqueueFor(m, replies...) // routes.go
		} else {
			s.Enqueue(replies...)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"queued":%d}`, s.Pending())
	case r.Method == http.MethodGet && r.URL.Path == "/_fake/requests":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Requests())
	case r.Method == http.MethodGet && r.URL.Path == "/_fake/timings":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Timings())
	case r.Method == http.MethodPost && r.URL.Path == "/_fake/context_limit":
		s.setContextLimit(w, body)
	case r.Method == http.MethodPost && r.URL.Path == "/_fake/refuse_images":
		s.setImageRefusal(w, body)
	case r.Method == http.MethodPost && r.URL.Path == "/_fake/reset":
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "unknown control endpoint", http.StatusNotFound)
	}
}

var errBadReply = errors.New("bad reply")

func (r Reply) validate() error {
	switch r.Kind {
	case KindText, KindRaw, KindStall:
	case KindHTTPError, KindHTML:
		if r.Status < 100 || r.Status > 599 {
			return fmt.Errorf("%w: status %d", errBadReply, r.Status)
		}
	default:
		return fmt.Errorf("%w: unknown kind %q", errBadReply, r.Kind)
	}
	return nil
}

// writeError writes an OpenAI-style error object.
func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
	_, _ = w.Write(b)
}
