package mcp

import (
	"context"
	"fmt"
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
// safe for concurrent use and never wait on a server, except WaitSettled and
// Close.
type Manager struct {
	opts    Options
	order   []string // server names, sorted
	servers map[string]*server

	cbMu      sync.Mutex // serialises OnStatus calls
	closeOnce sync.Once
}

// Start starts every enabled server of cfg in the background, in parallel,
// and returns at once. cfg should have passed Validate (LoadConfig does).
// Close the Manager to stop them.
func Start(cfg Config, opts Options) *Manager {
	m := &Manager{opts: opts.withDefaults(), order: cfg.Names(), servers: make(map[string]*server, len(cfg.Servers))}
	for _, name := range m.order {
		m.servers[name] = newServer(name, cfg.Servers[name], &m.opts, func() { m.statusChanged(name) })
	}
	for _, name := range m.order {
		go m.servers[name].run()
	}
	return m
}

// WaitSettled returns when every server is ready, failed or disabled — at
// most about InitTimeout after Start — or when ctx ends (its error then).
func (m *Manager) WaitSettled(ctx context.Context) error {
	for _, name := range m.order {
		select {
		case <-m.servers[name].settled:
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
	snaps := make([]serverSnap, 0, len(m.order))
	for _, name := range m.order {
		s := m.servers[name]
		s.mu.Lock()
		var defs []toolDef
		if s.live != nil {
			defs = s.live.tools
		}
		s.mu.Unlock()
		for _, d := range defs {
			if d.skip == "" {
				refs = append(refs, ToolRef{Server: name, Tool: d.name})
			}
		}
		snaps = append(snaps, serverSnap{srv: s, defs: defs})
	}
	return AssignNames(refs), snaps
}

// Statuses returns every server's status, in name order.
func (m *Manager) Statuses() []Status {
	names, _ := m.snapshot()
	out := make([]Status, 0, len(m.order))
	for _, name := range m.order {
		out = append(out, m.status(name, names))
	}
	return out
}

// Status returns one server's status.
func (m *Manager) Status(name string) (Status, bool) {
	if _, ok := m.servers[name]; !ok {
		return Status{}, false
	}
	names, _ := m.snapshot()
	return m.status(name, names), true
}

func (m *Manager) status(name string, names []NameMapping) Status {
	s := m.servers[name]
	s.mu.Lock()
	st := Status{
		Name: name, Transport: s.cfg.Transport(), State: s.state, Reason: s.reason,
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
		if n.Server == name {
			st.Tools = append(st.Tools, n.Name)
		}
	}
	st.StderrTail = s.log.Tail(20)
	return st
}

// Log is a server's stderr (its last LogBytes), with Loopdesk's notes of
// restarts, for the window's Log button.
func (m *Manager) Log(name string) (string, bool) {
	s, ok := m.servers[name]
	if !ok {
		return "", false
	}
	return s.log.String(), true
}

// Restart stops a server and starts it again now, with a fresh restart
// budget; a failed server is started again. It returns at once.
func (m *Manager) Restart(name string) error {
	s, ok := m.servers[name]
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
	m.closeOnce.Do(func() {
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Go(s.stop)
		}
		wg.Wait()
	})
	return nil
}

func (m *Manager) statusChanged(name string) {
	if m.opts.OnStatus == nil {
		return
	}
	m.cbMu.Lock()
	defer m.cbMu.Unlock()
	st, _ := m.Status(name)
	m.opts.OnStatus(st)
}
