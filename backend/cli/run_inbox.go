package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// registerInbox links a `loopdesk run` or `loopdesk acp` process to the window that has its
// database open, so the calls waiting here show in that window's inbox and can be answered
// there. nil when no window has it open (or it refused): the process goes on alone.
func registerInbox(ctx context.Context, dbPath string, st *stack.Stack, origin inbox.Process) *inbox.Registration {
	local := &inbox.Local{DB: st.DB, Approver: st.Approver, Runs: st.Runner, Workspaces: st.Workspaces, Origin: origin}
	reg, err := inbox.Register(ctx, dbPath, local, origin)
	if err != nil {
		return nil
	}
	// A run that ends here is in the window's ended list at once (an acp process outlives its
	// runs): telling the window anything makes it read that list again.
	sub, cancel := context.WithCancel(ctx)
	go func() { <-reg.Done(); cancel() }()
	st.Runner.Bus().Subscribe(sub, "", func(ev bus.Event) {
		if ev.Type == core.EventRunFinished {
			reg.Changed()
		}
	})
	return reg
}

// withInbox makes the asker leave calls to the window's inbox when it has no terminal, until
// the window goes: the calls still waiting are then denied, as they would have been without
// a window.
func (a *runAsker) withInbox(reg *inbox.Registration, stderr io.Writer) {
	if reg == nil {
		return
	}
	a.window = reg.Done()
	if a.terminal {
		fmt.Fprintf(stderr, "loopdesk run: calls waiting for approval also show in the Loopdesk window's inbox (pid %d)\n", os.Getpid())
		return
	}
	fmt.Fprintf(stderr, "loopdesk run: no terminal: calls waiting for approval wait for the Loopdesk window's inbox (pid %d)\n", os.Getpid())
	go func() {
		select {
		case <-a.window:
			for _, p := range a.approver.All() {
				_ = a.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: false, By: ByNoTerminal,
					Reason: "the Loopdesk window closed and there is no terminal to ask the person"})
			}
		case <-a.quit:
		}
	}()
}

// inboxAnswers reports whether the window's inbox is there to answer a call.
func (a *runAsker) inboxAnswers() bool {
	if a.window == nil {
		return false
	}
	select {
	case <-a.window:
		return false
	default:
		return true
	}
}

// watch makes p the call being prompted for: the returned channel closes when it is answered
// elsewhere (the inbox) first.
func (a *runAsker) watch(p tools.Pending) <-chan struct{} {
	a.curMu.Lock()
	defer a.curMu.Unlock()
	a.cur, a.answered = p, make(chan struct{})
	return a.answered
}

func (a *runAsker) unwatch() {
	a.curMu.Lock()
	a.cur, a.answered = tools.Pending{}, nil
	a.curMu.Unlock()
}

// decided is an approval_decided event: the prompt for that call, if it is the one shown,
// stops waiting for the person's line.
func (a *runAsker) decided(sessionID, callID string) {
	a.curMu.Lock()
	defer a.curMu.Unlock()
	if a.answered != nil && a.cur.SessionID == sessionID && a.cur.Call.ID == callID {
		close(a.answered)
		a.answered = nil
	}
}

// waiting reports whether p still waits for an answer.
func (a *runAsker) waiting(p tools.Pending) bool {
	for _, q := range a.approver.Pending(p.SessionID) {
		if q.Call.ID == p.Call.ID {
			return true
		}
	}
	return false
}
