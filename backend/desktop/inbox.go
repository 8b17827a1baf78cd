package desktop

import (
	"context"
	"errors"
	"log"
	"os"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/inbox"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// EventInboxChanged carries the whole inbox (an inbox.View) each time it may have changed:
// a call started or stopped waiting in any session of this window or of a process
// registered with it, a process registered or went away, a run ended or was dismissed.
const EventInboxChanged = "inbox:changed"

// Inbox is everything that waits for the person: every call waiting for approval in any
// session and child session of the window and of every `loopdesk run` or `loopdesk acp`
// registered with it, oldest first, and the runs that ended in the last 24 hours and were
// not dismissed.
func (h *Chat) Inbox() (inbox.View, error) { return h.c.inbox.View(h.c.context()) }

// InboxAnswer answers a waiting call in whichever process holds it, recorded as answered
// by "person:inbox". The first answer wins: a call answered already, or held by no process,
// is refused as not pending.
func (h *Chat) InboxAnswer(a inbox.Answer) error {
	return classifyInbox(h.c.inbox.Answer(h.c.context(), a))
}

// InboxAlwaysPreview is what "Always allow" of a waiting call would save with scope
// (session, folder or everywhere): the rule in words and every other waiting call, in any
// process, it would approve.
func (h *Chat) InboxAlwaysPreview(sessionID, callID, scope string) (inbox.RulePreview, error) {
	p, err := h.c.inbox.AlwaysPreview(h.c.context(), sessionID, callID, scope)
	return p, classifyInbox(err)
}

// InboxAlwaysAllow saves that rule, approves the call and every other waiting call the rule
// matches, and returns how many calls it approved.
func (h *Chat) InboxAlwaysAllow(sessionID, callID, scope string) (int, error) {
	n, err := h.c.inbox.AlwaysAllow(h.c.context(), sessionID, callID, scope)
	return n, classifyInbox(err)
}

// InboxDismiss takes an ended run off the inbox, for good.
func (h *Chat) InboxDismiss(runID string) error {
	return classifyInbox(h.c.inbox.Dismiss(h.c.context(), runID))
}

// classifyInbox makes the inbox's invalid input the window's (ErrInvalidInput); not
// pending and not found classify as they are.
func classifyInbox(err error) error {
	if err != nil && errors.Is(err, inbox.ErrInvalid) && !errors.Is(err, ErrInvalidInput) {
		return errors.Join(ErrInvalidInput, err)
	}
	return err
}

// newInbox is the window's inbox on its own Approver; the window's runs are recorded as
// the window's (the inbox's ended list says so).
func (c *core) newInbox() *inbox.Hub {
	c.db.SetRunOrigin(store.RunOrigin{Kind: inbox.OriginWindow})
	return inbox.NewHub(&inbox.Local{DB: c.db, Approver: c.st.Approver, Runs: c.st.Runner, Workspaces: c.st.Workspaces,
		Origin: inbox.Process{Kind: inbox.OriginWindow, PID: os.Getpid()}})
}

// startInbox emits EventInboxChanged whenever the inbox may have changed (coalesced: one
// view is built for a burst of changes, at once, never later than the last change) and opens
// the socket `loopdesk run` and `loopdesk acp` register on. A socket that cannot be opened
// is logged: the window's own sessions still have their inbox.
func (c *core) startInbox(ctx context.Context) {
	dirty := make(chan struct{}, 1)
	mark := func() {
		select {
		case dirty <- struct{}{}:
		default:
		}
	}
	cancel := c.inbox.Watch(mark)
	context.AfterFunc(ctx, cancel)
	c.st.Runner.Bus().Subscribe(ctx, "", func(ev bus.Event) {
		if ev.Type == loopcore.EventRunFinished {
			mark() // the run is in the ended list once its row is written, before run_finished
		}
	})
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-dirty:
			}
			v, err := c.inbox.View(ctx)
			if err != nil && ctx.Err() == nil {
				log.Printf("loopdesk: inbox: %v", err)
			}
			c.emitEvent(EventInboxChanged, v)
		}
	}()
	ln, err := inbox.Listen(inbox.SocketPath(c.db.Path()))
	if err != nil {
		log.Printf("loopdesk: %v; runs started from a terminal or an editor will not show in the inbox", err)
		return
	}
	go c.inbox.Serve(ctx, ln)
}
