package desktop

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/notify"
)

// EventFocusCard asks the page to open a session and bring one of its cards into view (a
// click on a desktop notification), with a FocusCard payload.
const EventFocusCard = "app:focus-card"

// FocusCard is EventFocusCard's payload. CallID is "" for a finished run: the page opens the
// session at its end.
type FocusCard struct {
	SessionID string `json:"session_id"`
	RunID     string `json:"run_id"`
	CallID    string `json:"call_id"`
}

// Notifier shows desktop notifications (notify.Notifier).
type Notifier interface {
	Notify(ctx context.Context, title, body, key string) (uint32, error)
	CloseNotification(ctx context.Context, id uint32) error
}

var _ Notifier = (*notify.Notifier)(nil)

// keyNotifications is the settings key of the person's on/off switch ("off" turns them off).
const keyNotifications = "ui.notifications"

// notifyTimeout bounds one D-Bus call to the notification server.
const notifyTimeout = 5 * time.Second

// notices tells the person, through desktop notifications, that a call waits for them or a
// run ended while the window is not focused, and turns a click into EventFocusCard.
//
// The page reports focus (Window.SetFocused); until it does, the window counts as focused,
// so nothing is shown for a window the person is looking at. Notifications are shown from
// one goroutine of their own, so a slow notification server never holds up the event bus.
type notices struct {
	c     *core
	n     Notifier
	show  func() // raises and focuses the window
	queue chan bus.Event
	mu    sync.Mutex
	focus bool
	shown map[string]uint32 // key -> id of a notification still up, to withdraw it
	byID  map[uint32]FocusCard
	done  int // events handled, for tests (export_test.go)
}

func newNotices(c *core) *notices {
	return &notices{c: c, focus: true, shown: map[string]uint32{}, byID: map[uint32]FocusCard{}}
}

// StartNotifications connects the loop's events to n: from now on an approval waiting or a
// run ending while the window is not focused shows a notification. show raises the window
// (a click calls it). Call it after Startup; it returns at once.
func (s *Services) StartNotifications(n Notifier, show func()) {
	c := s.c
	nt := c.notices
	nt.mu.Lock()
	nt.n, nt.show, nt.queue = n, show, make(chan bus.Event, 64)
	nt.mu.Unlock()
	ctx := c.context()
	go nt.run(ctx)
	c.st.Runner.Bus().Subscribe(ctx, "", nt.offer)
}

// NotificationEvent is the notifier's onEvent (notify.Connect): a click raises the window
// and asks the page to focus the card the notification was about.
func (s *Services) NotificationEvent(ev notify.Event) {
	nt := s.c.notices
	nt.mu.Lock()
	target, ok := nt.byID[ev.ID]
	if ev.Kind == notify.Closed {
		delete(nt.byID, ev.ID)
		delete(nt.shown, ev.Key)
	}
	show := nt.show
	nt.mu.Unlock()
	if !ok || ev.Kind != notify.Clicked {
		return
	}
	if show != nil {
		show()
	}
	nt.c.emitEvent(EventFocusCard, target)
}

// setFocused records whether the window has the keyboard focus (the page says so).
func (nt *notices) setFocused(focused bool) {
	nt.mu.Lock()
	nt.focus = focused
	nt.mu.Unlock()
}

// offer runs on the bus's goroutine: it only queues what may need a notification.
func (nt *notices) offer(ev bus.Event) {
	switch ev.Type {
	case loopcore.EventApprovalRequested, loopcore.EventApprovalDecided, loopcore.EventRunFinished:
	default:
		return
	}
	select {
	case nt.queue <- ev:
	default:
		slog.Warn("notifications: queue full, event dropped", "type", ev.Type)
	}
}

func (nt *notices) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-nt.queue:
			nt.handle(ctx, ev)
			nt.mu.Lock()
			nt.done++
			nt.mu.Unlock()
		}
	}
}

// handle shows, or withdraws, the notification for one event.
func (nt *notices) handle(ctx context.Context, ev bus.Event) {
	switch p := ev.Payload.(type) {
	case loopcore.ApprovalDecidedPayload:
		nt.withdraw(ctx, approvalKey(ev.SessionID, ev.RunID, p.CallID))
	case loopcore.ApprovalRequestedPayload:
		nt.notify(ctx, approvalKey(ev.SessionID, ev.RunID, p.CallID), FocusCard{ev.SessionID, ev.RunID, p.CallID},
			"Approval needed: "+p.Name, nt.sessionTitle(ctx, ev.SessionID)+"\n"+p.Name+" "+oneLine(string(p.Arguments), 120))
	case loopcore.RunFinishedPayload:
		nt.notify(ctx, "run:"+ev.SessionID+":"+ev.RunID, FocusCard{SessionID: ev.SessionID, RunID: ev.RunID},
			"Run "+runOutcome(p.Status), nt.sessionTitle(ctx, ev.SessionID)+"\n"+oneLine(runSummary(p.Result), 160))
	}
}

func (nt *notices) notify(ctx context.Context, key string, target FocusCard, title, body string) {
	nt.mu.Lock()
	focused := nt.focus
	nt.mu.Unlock()
	if focused || !nt.c.notificationsOn(ctx) {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	id, err := nt.n.Notify(cctx, title, body, key)
	if err != nil {
		slog.Warn("show a notification", "err", err)
		return
	}
	nt.mu.Lock()
	nt.shown[key], nt.byID[id] = id, target
	nt.mu.Unlock()
}

// withdraw closes a notification whose question was answered (in the window, or by a rule).
func (nt *notices) withdraw(ctx context.Context, key string) {
	nt.mu.Lock()
	id, ok := nt.shown[key]
	delete(nt.shown, key)
	nt.mu.Unlock()
	if !ok {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	if err := nt.n.CloseNotification(cctx, id); err != nil {
		slog.Warn("withdraw a notification", "err", err)
	}
}

func (nt *notices) sessionTitle(ctx context.Context, id string) string {
	s, err := nt.c.db.GetSession(ctx, id)
	if err != nil || strings.TrimSpace(s.Title) == "" {
		return "Loopdesk"
	}
	if s.ParentCallID != "" {
		// A child's approval says which child asks, and for which session.
		return "Child “" + s.Title + "” of " + nt.sessionTitle(ctx, s.ParentID)
	}
	return s.Title
}

// notificationsOn reads the person's switch (on unless saved "off").
func (c *core) notificationsOn(ctx context.Context) bool {
	v, _, err := c.db.GetSetting(ctx, keyNotifications)
	return err != nil || v != "off"
}

func (c *core) emitEvent(name string, data any) {
	c.mu.Lock()
	emit := c.emit
	c.mu.Unlock()
	if emit != nil {
		emit(name, data)
	}
}

func approvalKey(session, run, call string) string {
	return fmt.Sprintf("approval:%s:%s:%s", session, run, call)
}

func runOutcome(s loopcore.StopReason) string {
	switch s {
	case loopcore.StopCompleted:
		return "finished"
	case loopcore.StopCancelled:
		return "stopped"
	default:
		return "ended: " + strings.ReplaceAll(string(s), "_", " ")
	}
}

func runSummary(r loopcore.Result) string {
	if r.Error != "" {
		return r.Error
	}
	if r.Output != "" {
		return r.Output
	}
	return fmt.Sprintf("%d turns, %d tool calls", r.Turns, r.ToolCalls)
}

// oneLine squeezes whitespace and cuts s to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
