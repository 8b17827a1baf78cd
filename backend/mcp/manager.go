package mcp

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// Options tune a Manager; the zero value gives the documented defaults.
type Options struct {
	// InitTimeout bounds start + initialize + tools/list (default 10 s).
	InitTimeout time.Duration
	// MaxRestarts bounds restarts in a row after a server exits (default 5).
	MaxRestarts int
	// Backoff is the wait before restart k (default 500 ms doubling, at most 8 s).
	Backoff func(k int) time.Duration
	// StableAfter: a server up this long gets a fresh restart budget (default 1 min).
	StableAfter time.Duration
	// CallWait bounds how long a call waits for a server that is down (default 2 s).
	CallWait time.Duration
	// StopGrace is how long a stdio server may take to exit after its stdin
	// is closed before its process group is killed (default 1 s).
	StopGrace time.Duration
	// LogBytes bounds each server's stderr log (default 64 KiB).
	LogBytes int
	// ClientVersion is sent in initialize.
	ClientVersion string
	// OnStatus is called after every change of a server's status (state,
	// reason, tools), one call at a time, from the manager's goroutines. It
	// must return quickly and must not call Close.
	OnStatus func(Status)
}

func (o Options) withDefaults() Options {
	if o.InitTimeout <= 0 {
		o.InitTimeout = 10 * time.Second
	}
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = 5
	}
	if o.Backoff == nil {
		o.Backoff = func(k int) time.Duration { return min(500*time.Millisecond<<(k-1), 8*time.Second) }
	}
	if o.StableAfter <= 0 {
		o.StableAfter = time.Minute
	}
	if o.CallWait <= 0 {
		o.CallWait = 2 * time.Second
	}
	if o.StopGrace <= 0 {
		o.StopGrace = time.Second
	}
	if o.LogBytes <= 0 {
		o.LogBytes = 64 << 10
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	return o
}

// Manager runs the configured servers and offers their tools. Its methods are
// safe for concurrent use and never wait on a server, except WaitSettled,
// Apply and Close.
type Manager struct {
	opts Options

	mu      sync.Mutex // guards servers and closed, not the servers' own state
	servers map[string]*server
	closed  bool

	cbMu sync.Mutex // serialises OnStatus calls
}

// Start starts every enabled server of cfg in the background, in parallel,
// and returns at once. cfg should have passed Validate (LoadConfig does).
// Close the Manager to stop them.
func Start(cfg Config, opts Options) *Manager {
	m := &Manager{opts: opts.withDefaults(), servers: make(map[string]*server, len(cfg.Servers))}
	for _, name := range cfg.Names() {
		m.servers[name] = m.newServer(name, cfg.Servers[name])
	}
	for _, s := range m.list() {
		go s.run()
	}
	return m
}

func (m *Manager) newServer(name string, cfg ServerConfig) *server {
	s := newServer(name, cfg, &m.opts, nil)
	s.changed = func() { m.statusChanged(s) }
	return s
}

// list is the current servers in name order.
func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.SortedFunc(maps.Values(m.servers), func(a, b *server) int { return strings.Compare(a.name, b.name) })
}

func (m *Manager) get(name string) (*server, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	return s, ok
}

// Apply makes the running servers match cfg (after a person saved Settings):
// servers removed or whose entry changed are stopped, new and changed ones
// started; the others keep running untouched. It waits only for the stopped
// ones to be gone.
func (m *Manager) Apply(cfg Config) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var stale, fresh []*server
	for name, s := range m.servers {
		if next, ok := cfg.Servers[name]; !ok || !reflect.DeepEqual(next, s.cfg) {
			stale = append(stale, s)
			delete(m.servers, name)
		}
	}
	for _, name := range cfg.Names() {
		if _, ok := m.servers[name]; !ok {
			s := m.newServer(name, cfg.Servers[name])
			m.servers[name] = s
			fresh = append(fresh, s)
		}
	}
	m.mu.Unlock()
	stopAll(stale)
	for _, s := range fresh {
		go s.run()
	}
}

// WaitSettled returns when every server is ready, failed or disabled — at
// most about InitTimeout after Start — or when ctx ends (its error then).
func (m *Manager) WaitSettled(ctx context.Context) error {
	for _, s := range m.list() {
		select {
		case <-s.settled:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Tools returns the tools of every ready server, servers in name order and
// each server's tools in its own order, named by AssignNames. Call it for each
// run (or model request): the set changes as servers come and go.
func (m *Manager) Tools() []tools.Tool {
	names, snaps := m.snapshot()
	byRef := make(map[ToolRef]string, len(names))
	for _, n := range names {
		byRef[ToolRef{Server: n.Server, Tool: n.Tool}] = n.Name
	}
	out := make([]tools.Tool, 0, len(names))
	for _, sn := range snaps {
		for _, d := range sn.defs {
			ref := ToolRef{Server: sn.srv.name, Tool: d.name}
			name, ok := byRef[ref]
			if d.skip != "" || !ok {
				continue
			}
			delete(byRef, ref) // a server listing a name twice gets it offered once
			out = append(out, &Tool{srv: sn.srv, name: name, def: d, readOnly: d.readOnlyHint && sn.srv.cfg.Trusted})
		}
	}
	return out
}

// Names is the model-facing name of every tool offered, with why a name
// differs from mcp__<server>__<tool> where it does (for Settings).
func (m *Manager) Names() []NameMapping {
	names, _ := m.snapshot()
	return names
}

type serverSnap struct {
	srv  *server
	defs []toolDef
}

// snapshot reads the tools of every live server and names the offered ones,
// in the order Tools returns them.
func (m *Manager) snapshot() ([]NameMapping, []serverSnap) {
	var refs []ToolRef
	servers := m.list()
	snaps := make([]serverSnap, 0, len(servers))
	for _, s := range servers {
		s.mu.Lock()
		var defs []toolDef
		if s.live != nil {
			defs = s.live.tools
		}
		s.mu.Unlock()
		for _, d := range defs {
			if d.skip == "" {
				refs = append(refs, ToolRef{Server: s.name, Tool: d.name})
			}
		}
		snaps = append(snaps, serverSnap{srv: s, defs: defs})
	}
	return AssignNames(refs), snaps
}

// Statuses returns every server's status, in name order.
func (m *Manager) Statuses() []Status {
	names, snaps := m.snapshot()
	out := make([]Status, 0, len(snaps))
	for _, sn := range snaps {
		out = append(out, m.status(sn.srv, names))
	}
	return out
}

// Status returns one server's status.
func (m *Manager) Status(name string) (Status, bool) {
	s, ok := m.get(name)
	if !ok {
		return Status{}, false
	}
	names, _ := m.snapshot()
	return m.status(s, names), true
}

func (m *Manager) status(s *server, names []NameMapping) Status {
	s.mu.Lock()
	st := Status{
		Name: s.name, Transport: s.cfg.Transport(), State: s.state, Reason: s.reason,
		Attempt: s.attempt, MaxRestarts: m.opts.MaxRestarts, Trusted: s.cfg.Trusted, Tools: []string{},
	}
	if s.exitCode != nil {
		code := *s.exitCode
		st.ExitCode = &code
	}
	if s.live != nil {
		for _, d := range s.live.tools {
			if d.skip != "" {
				st.Skipped = append(st.Skipped, d.skip)
			}
		}
	}
	s.mu.Unlock()
	for _, n := range names {
		if n.Server == s.name {
			st.Tools = append(st.Tools, n.Name)
		}
	}
	st.StderrTail = s.log.Tail(20)
	return st
}

// Log is a server's stderr (its last LogBytes), with Loopdesk's notes of
// restarts, for the window's Log button.
func (m *Manager) Log(name string) (string, bool) {
	s, ok := m.get(name)
	if !ok {
		return "", false
	}
	return s.log.String(), true
}

// Restart stops a server and starts it again now, with a fresh restart
// budget; a failed server is started again. It returns at once.
func (m *Manager) Restart(name string) error {
	s, ok := m.get(name)
	if !ok {
		return fmt.Errorf("restart MCP server %q: no such server", name)
	}
	if s.cfg.Disabled {
		return fmt.Errorf("restart MCP server %q: it is disabled", name)
	}
	s.requestRestart()
	return nil
}

// Close stops every server (stdin closed, then the process group killed
// after StopGrace) and waits until they are gone. Calls in flight fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	stopAll(servers) // stop is idempotent: a second Close waits for the same ends
	return nil
}

func stopAll(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.stop)
	}
	wg.Wait()
}

// statusChanged reports s's status, unless s was replaced or removed by Apply.
func (m *Manager) statusChanged(s *server) {
	if m.opts.OnStatus == nil {
		return
	}
	if cur, ok := m.get(s.name); !ok || cur != s {
		return
	}
	m.cbMu.Lock()
	defer m.cbMu.Unlock()
	names, _ := m.snapshot()
	m.opts.OnStatus(m.status(s, names))
}
