package cli

import (
	"context"
	"slices"
	"sync"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/stack"
)

// acpStacks is every stack of a `loopdesk acp` process: the one it built and those an
// editor's sessions with MCP servers of their own run on (Stack.WithMCP), until each is
// closed. They share one Approver, so the inbox lists every call of the process; this finds
// the run a session is in on whichever stack runs it (inbox.Runs), and tells the window when
// any of them ends a run.
type acpStacks struct {
	ctx  context.Context
	main *stack.Stack
	mu   sync.Mutex
	all  []*stack.Stack // main first
	link *inbox.Link    // nil until registerInbox
}

func newACPStacks(ctx context.Context, st *stack.Stack) *acpStacks {
	return &acpStacks{ctx: ctx, main: st, all: []*stack.Stack{st}}
}

// withMCP is acp.Config.NewStack: a stack of the session's own, followed until it is closed.
func (p *acpStacks) withMCP(servers mcp.Config) (*stack.Stack, error) {
	s, err := p.main.WithMCP(servers)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.all = append(p.all, s)
	p.mu.Unlock()
	sub, cancel := context.WithCancel(p.ctx)
	s.Runner.Bus().Subscribe(sub, "", p.finished)
	go func() {
		select {
		case <-s.Done():
		case <-sub.Done():
		}
		cancel()
		p.mu.Lock()
		p.all = slices.DeleteFunc(p.all, func(x *stack.Stack) bool { return x == s })
		p.mu.Unlock()
	}()
	return s, nil
}

// Running is the run sessionID is in, on any of the process's stacks.
func (p *acpStacks) Running(sessionID string) (string, bool) {
	p.mu.Lock()
	all := slices.Clone(p.all)
	p.mu.Unlock()
	for _, s := range all {
		if id, ok := s.Runner.Running(sessionID); ok {
			return id, true
		}
	}
	return "", false
}

// finished tells the window, once registered, that a run of a session's own stack ended.
func (p *acpStacks) finished(ev bus.Event) {
	p.mu.Lock()
	link := p.link
	p.mu.Unlock()
	if ev.Type == core.EventRunFinished && link != nil {
		link.Changed()
	}
}

// register links the process to the window's inbox (registerInbox) as the editor client.
func (p *acpStacks) register(dbPath string, origin inbox.Process) *inbox.Link {
	link := registerInbox(p.ctx, dbPath, p.main, p, origin)
	p.mu.Lock()
	p.link = link
	p.mu.Unlock()
	return link
}
