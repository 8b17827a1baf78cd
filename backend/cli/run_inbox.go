package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// registerInbox links a `loopdesk run` or `loopdesk acp` process to the window that has its
// database open, now or once one opens it (and again when it comes back), so the calls
// waiting here show in that window's inbox and can be answered there.
func registerInbox(ctx context.Context, dbPath string, st *stack.Stack, runs inbox.Runs, origin inbox.Process) *inbox.Link {
	local := &inbox.Local{DB: st.DB, Approver: st.Approver, Runs: runs, Workspaces: st.Workspaces, Origin: origin}
	link := inbox.Keep(ctx, dbPath, local, origin)
	// A run that ends here is in the window's ended list at once (an acp process outlives its
	// runs): telling the window anything makes it read that list again.
	st.Runner.Bus().Subscribe(ctx, "", func(ev bus.Event) {
		if ev.Type == core.EventRunFinished {
			link.Changed()
		}
	})
	return link
}

// withInbox makes the asker leave calls to the window's inbox when it has no terminal, while
// a window is there: when it goes, the calls still waiting are denied, as they would have
// been without a window; a window that opens later gets the calls made from then on.
func (a *runAsker) withInbox(link *inbox.Link, stderr io.Writer) (cancel func()) {
	a.link = link
	registered := false
	var mu sync.Mutex
	changed := func() {
		mu.Lock()
		defer mu.Unlock()
		now := link.Registered()
		switch {
		case now && !registered && a.terminal:
			fmt.Fprintf(stderr, "loopdesk run: calls waiting for approval also show in the Loopdesk window's inbox (pid %d)\n", os.Getpid())
		case now && !registered:
			fmt.Fprintf(stderr, "loopdesk run: no terminal: calls waiting for approval wait for the Loopdesk window's inbox (pid %d)\n", os.Getpid())
		case !now && registered && !a.terminal:
			for _, p := range a.approver.All() {
				_ = a.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: false, By: ByNoTerminal,
					Reason: "the Loopdesk window closed and there is no terminal to ask the person"})
			}
		}
		registered = now
	}
	cancel = link.Watch(changed)
	changed() // a window found before the watch began
	return cancel
}

// inboxAnswers reports whether a window's inbox is there to answer a call.
func (a *runAsker) inboxAnswers() bool { return a.link != nil && a.link.Registered() }

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
