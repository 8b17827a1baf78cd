package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server owns one configured server: a goroutine (run) starts it, watches it,
// restarts it, and is the only writer of conn; callers read the current
// connection under mu.
type server struct {
	name string
	cfg  ServerConfig
	opts *Options
	log  *logBuffer
	// changed tells the manager the status changed; called without mu held.
	changed func()

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{} // closed when run returned and the server is stopped
	restart chan struct{} // a person asked for a restart (buffer 1)
	settled chan struct{} // closed the first time the state is settled
	settle  sync.Once

	mu       sync.Mutex
	state    State
	reason   string
	exitCode *int
	attempt  int
	live     *conn
	up       chan struct{} // closed while ready; replaced when leaving ready
}

// conn is one connection to a server (a process for stdio). Its tools are
// replaced when the server says its list changed.
type conn struct {
	sess  *sdk.ClientSession
	proc  *process // nil for http and sse
	tools []toolDef
	seq   int  // refreshes started; only the latest one is applied
	dirty bool // list_changed arrived before the connection was live
}

func newServer(name string, cfg ServerConfig, opts *Options, changed func()) *server {
	ctx, cancel := context.WithCancel(context.Background())
	return &server{
		name: name, cfg: cfg, opts: opts, log: newLogBuffer(opts.LogBytes), changed: changed,
		ctx: ctx, cancel: cancel, done: make(chan struct{}), restart: make(chan struct{}, 1),
		settled: make(chan struct{}), state: StateStarting, up: make(chan struct{}),
	}
}

// Why watch stopped watching a live connection, besides the server exiting.
var (
	errStopped      = errors.New("stopped")
	errRestartAsked = errors.New("restart asked")
)

// run is the server's life: start, serve until it exits, restart with backoff
// at most MaxRestarts times in a row; a failed first start or exhausted
// restarts wait for a person's Restart. It returns when the manager closes.
func (s *server) run() {
	defer close(s.done)
	if s.cfg.Disabled {
		s.set(StateDisabled, "disabled in the config", nil, 0)
		<-s.ctx.Done()
		return
	}
	attempt := 0 // restarts since the last start that stayed up StableAfter, or a request
	for {
		if attempt == 0 {
			s.set(StateStarting, "", nil, 0)
		} else {
			s.set(StateRestarting, s.reasonNow(), nil, attempt)
		}
		wasUp, err := s.serveOnce(&attempt)
		switch {
		case errors.Is(err, errStopped):
			return
		case errors.Is(err, errRestartAsked):
			attempt = 0
			continue
		}
		if (!wasUp && attempt == 0) || attempt >= s.opts.MaxRestarts {
			if attempt > 0 {
				err = fmt.Errorf("%w; gave up after %d restarts", err, attempt)
			}
			s.set(StateFailed, err.Error(), s.exitCodeNow(), 0)
			if !s.waitRestart() {
				return
			}
			attempt = 0
			continue
		}
		attempt++
		delay := s.opts.Backoff(attempt)
		s.set(StateExited, fmt.Sprintf("%v; restart %d of %d in %s", err, attempt, s.opts.MaxRestarts, delay), s.exitCodeNow(), attempt)
		switch s.sleep(delay) {
		case sleepStopped:
			return
		case sleepRestartAsked:
			attempt = 0
		}
	}
}

// serveOnce connects and, when that works, serves until the connection ends.
// It returns why it ended and whether the server was up; a server that stayed
// up StableAfter gets a fresh restart budget (*attempt = 0).
func (s *server) serveOnce(attempt *int) (bool, error) {
	c, err := s.connect()
	if s.ctx.Err() != nil {
		if c != nil {
			s.goDown(c)
		}
		return false, errStopped
	}
	if err != nil {
		return false, err
	}
	started := time.Now()
	s.goLive(c)
	why := s.watch(c)
	s.goDown(c)
	if errors.Is(why, errRestartAsked) {
		s.log.note("restarted on request")
	}
	if time.Since(started) >= s.opts.StableAfter {
		*attempt = 0
	}
	return true, why
}

// connect starts the server and runs initialize and tools/list, bounded by
// InitTimeout. The error is the reason a person reads.
func (s *server) connect() (*conn, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.InitTimeout)
	defer cancel()
	c := &conn{}
	transport, err := s.transport(c)
	if err != nil {
		return nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "loopdesk", Version: s.opts.ClientVersion}, &sdk.ClientOptions{
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { s.toolsChanged(c) },
	})
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, s.startFailure(ctx, c, fmt.Errorf("initialize: %w", err))
	}
	c.sess = sess
	if ir := sess.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Tools == nil {
		return c, nil // a server of prompts or resources only: ready, no tools
	}
	defs, err := listTools(ctx, sess)
	if err != nil {
		_ = sess.Close()
		return nil, s.startFailure(ctx, c, fmt.Errorf("list tools: %w", err))
	}
	c.tools = defs
	return c, nil
}

func (s *server) transport(c *conn) (sdk.Transport, error) {
	lookup := osLookup
	switch s.cfg.Transport() {
	case TransportStdio:
		p, err := startProcess(s.cfg, s.log)
		if err != nil {
			return nil, err
		}
		c.proc = p
		return p.transport(s.log), nil
	case TransportHTTP:
		return &sdk.StreamableClientTransport{Endpoint: expand(s.cfg.URL, lookup), HTTPClient: s.httpClient()}, nil
	case TransportSSE:
		return &sdk.SSEClientTransport{Endpoint: expand(s.cfg.URL, lookup), HTTPClient: s.httpClient()}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", s.cfg.Type)
}

func (s *server) httpClient() *http.Client {
	h := expandAll(s.cfg.Headers, osLookup)
	if len(h) == 0 {
		return http.DefaultClient
	}
	return &http.Client{Transport: headerTransport{headers: h, next: http.DefaultTransport}}
}

// headerTransport adds the configured headers (e.g. Authorization) to every
// request to an HTTP server.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}

// startFailure turns a failed start into the reason shown, and stops what was
// started. An exit before initialize says its code.
func (s *server) startFailure(ctx context.Context, c *conn, err error) error {
	if c.proc != nil {
		code, exited := c.proc.exitCode(300 * time.Millisecond)
		c.proc.stop(0)
		if exited {
			s.setExitCode(code)
			return fmt.Errorf("exited with code %d before answering initialize", code)
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && s.ctx.Err() == nil {
		return fmt.Errorf("did not answer initialize within %s", s.opts.InitTimeout)
	}
	return err
}

// watch blocks until the connection ends, the manager closes, or a restart is
// asked, and says which.
func (s *server) watch(c *conn) error {
	sessDone := make(chan struct{})
	go func() { _ = c.sess.Wait(); close(sessDone) }()
	var procDone <-chan struct{}
	if c.proc != nil {
		procDone = c.proc.done
	}
	select {
	case <-s.ctx.Done():
		return errStopped
	case <-s.restart:
		return errRestartAsked
	case <-procDone:
	case <-sessDone:
	}
	if c.proc != nil {
		if code, ok := c.proc.exitCode(time.Second); ok {
			s.setExitCode(code)
			return fmt.Errorf("exited with code %d", code)
		}
		return errors.New("closed its connection (stdout)")
	}
	return errors.New("connection closed")
}

// goLive publishes c as the server's connection and marks it ready.
func (s *server) goLive(c *conn) {
	s.mu.Lock()
	s.live = c
	s.state, s.reason, s.exitCode, s.attempt = StateReady, "", nil, 0
	close(s.up)
	dirty := c.dirty
	s.mu.Unlock()
	s.markSettled()
	s.changed()
	if dirty {
		go s.refreshTools(c)
	}
}

// goDown withdraws c and stops it: calls still waiting on it fail, new ones
// wait for the next connection or fail within CallWait.
func (s *server) goDown(c *conn) {
	s.mu.Lock()
	if s.live == c {
		s.live = nil
		s.up = make(chan struct{})
	}
	s.mu.Unlock()
	_ = c.sess.Close()
	if c.proc != nil {
		c.proc.stop(s.opts.StopGrace)
	}
}

func (s *server) set(st State, reason string, code *int, attempt int) {
	s.mu.Lock()
	s.state, s.reason, s.attempt = st, reason, attempt
	if code != nil || st == StateStarting {
		s.exitCode = code
	}
	s.mu.Unlock()
	if st.settled() {
		s.markSettled()
	}
	s.changed()
}

func (s *server) setExitCode(code int) {
	s.mu.Lock()
	s.exitCode = &code
	s.mu.Unlock()
}

func (s *server) exitCodeNow() *int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

func (s *server) reasonNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

func (s *server) markSettled() { s.settle.Do(func() { close(s.settled) }) }

// waitRestart blocks a failed server until a person asks for a restart (true)
// or the manager closes (false).
func (s *server) waitRestart() bool {
	select {
	case <-s.restart:
		s.log.note("restarted on request")
		return true
	case <-s.ctx.Done():
		return false
	}
}

type sleepEnd int

const (
	sleepDone sleepEnd = iota
	sleepRestartAsked
	sleepStopped
)

// sleep waits out a backoff; a restart request cuts it short (and, as any
// Restart, gives a fresh restart budget).
func (s *server) sleep(d time.Duration) sleepEnd {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return sleepDone
	case <-s.restart:
		s.log.note("restarted on request")
		return sleepRestartAsked
	case <-s.ctx.Done():
		return sleepStopped
	}
}

// requestRestart asks run to restart the server now (idempotent while pending).
func (s *server) requestRestart() {
	select {
	case s.restart <- struct{}{}:
	default:
	}
}

func (s *server) stop() {
	s.cancel()
	<-s.done
}
