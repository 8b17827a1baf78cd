package desktop

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
)

// Runs outlive the window. Closing the window while runs go asks the page (EventCloseRequested)
// whether to stop them or keep them running; kept, the window hides and the process goes on —
// its runs, notifications and everything else that listens stay up, since the app's context
// is not touched. A later launch (Instance.SecondLaunch) or a notification's click shows the
// window again with the page as current as ever: its event stream never stopped. While hidden,
// the process quits by itself once nothing needs it: no run going, nothing that HoldOpen
// registered still busy. Quitting (the page's Quit, Ctrl+Q) stops every run the way Stop does
// (Shutdown cancels them and waits until their rows are written).

// EventCloseRequested asks the page what to do with the runs going when the window is being
// closed, with a CloseRequest payload: Lifecycle.StopAndQuit or Lifecycle.KeepRunning answers,
// and no answer (Esc) leaves the window open.
const EventCloseRequested = "app:close-requested"

// CloseRequest is EventCloseRequested's payload: how many runs are going. Runs 0 says the
// question was answered (in another page of the same window: the dev server's browser) and
// is to be put away.
type CloseRequest struct {
	Runs int `json:"runs"`
}

// Shell is the window and the process as the lifecycle drives them: Wails' runtime in the
// app, a fake in tests. Each returns at once.
type Shell interface {
	Hide()
	Show()
	Quit()
}

// idleGrace is how long after the last run ended a hidden window waits before quitting: a
// message queued on that run starts the next run within it.
const idleGrace = time.Second

// Lifecycle is the bound service for closing and quitting the window.
type Lifecycle struct{ c *core }

// lifecycle is the window's state between open, hidden and quitting. Safe for concurrent use.
type lifecycle struct {
	c     *core
	grace time.Duration

	mu       sync.Mutex
	shell    Shell
	hidden   bool
	quitting bool
	going    map[string]bool // top-level sessions whose run_started came and run_finished not yet
	holds    []func() bool
	timer    *time.Timer
}

func newLifecycle(c *core) *lifecycle {
	return &lifecycle{c: c, grace: idleGrace, going: map[string]bool{}}
}

// StartLifecycle connects the lifecycle to the window and the process once they exist
// (OnStartup, after Startup): from now on it counts the runs going.
func (s *Services) StartLifecycle(sh Shell) {
	lc := s.c.life
	lc.mu.Lock()
	lc.shell = sh
	lc.mu.Unlock()
	ctx := s.c.context()
	s.c.st.Runner.Bus().Subscribe(ctx, "", lc.offer)
	if in := s.c.inbox; in != nil {
		// A call waiting in the inbox — of this window's runs or of a `loopdesk run` or an
		// editor registered with it — keeps a hidden window up; its answer may let it go.
		s.HoldOpen(func() bool { return len(in.Approvals(ctx)) > 0 })
		context.AfterFunc(ctx, in.Watch(lc.schedule))
	}
}

// HoldOpen registers busy: while it reports true (something outside this process's runs
// still waits for the person, such as a call of another process waiting in the inbox), a
// hidden window does not quit. Call CheckIdle when what busy reports may have become false.
func (s *Services) HoldOpen(busy func() bool) {
	lc := s.c.life
	lc.mu.Lock()
	lc.holds = append(lc.holds, busy)
	lc.mu.Unlock()
}

// CheckIdle quits a hidden window that nothing needs any more (after the grace period).
func (s *Services) CheckIdle() { s.c.life.schedule() }

// ShowWindow brings the window back (a second launch, a notification's click) and un-hides it.
func (s *Services) ShowWindow() {
	lc := s.c.life
	lc.mu.Lock()
	lc.hidden = false
	sh := lc.shell
	lc.mu.Unlock()
	if sh != nil {
		sh.Show()
	}
}

// Hidden reports whether the window was closed with its runs kept going.
func (s *Services) Hidden() bool {
	lc := s.c.life
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.hidden
}

// BeforeClose is the window's OnBeforeClose: it reports whether to keep the window open.
// Quitting (StopAndQuit, Quit, a hidden window with nothing left) lets it close; with no run
// going it closes at once; otherwise the page is asked (EventCloseRequested) and the window
// stays until it answers. The geometry is saved first, unless the window is hidden.
func (s *Services) BeforeClose() (prevent bool) {
	lc := s.c.life
	lc.mu.Lock()
	quitting, hidden := lc.quitting, lc.hidden
	lc.mu.Unlock()
	if !hidden {
		if err := s.Window.SaveGeometry(); err != nil {
			slog.Warn("save the window geometry", "err", err)
		}
	}
	if quitting {
		return false
	}
	n := lc.runsGoing()
	if n == 0 {
		lc.markQuitting()
		return false
	}
	s.c.emitEvent(EventCloseRequested, CloseRequest{Runs: n})
	return true
}

// RunsGoing is how many sessions have a run going (a child's run counts with its parent's).
func (h *Lifecycle) RunsGoing() int { return h.c.life.runsGoing() }

// StopAndQuit is the close dialog's "Stop them": every run stops as Stop does and the app
// quits once their rows are written.
func (h *Lifecycle) StopAndQuit() { h.c.life.quit() }

// Quit quits the app (Ctrl+Q): runs going stop as Stop does, without a question.
func (h *Lifecycle) Quit() { h.c.life.quit() }

// KeepRunning is the close dialog's "Keep them running": the window hides and the process
// goes on; notifications come as for a window without the focus. If the runs ended while
// the question was open, the app quits instead (after the grace period).
func (h *Lifecycle) KeepRunning() {
	c := h.c
	if err := (&Window{c}).SaveGeometry(); err != nil {
		slog.Warn("save the window geometry", "err", err)
	}
	c.emitEvent(EventCloseRequested, CloseRequest{})
	lc := c.life
	lc.mu.Lock()
	lc.hidden = true
	sh := lc.shell
	lc.mu.Unlock()
	c.notices.setFocused(false)
	if sh != nil {
		sh.Hide()
	}
	lc.schedule()
}

func (lc *lifecycle) markQuitting() {
	lc.mu.Lock()
	lc.quitting = true
	lc.mu.Unlock()
}

func (lc *lifecycle) quit() {
	lc.mu.Lock()
	lc.quitting = true
	sh := lc.shell
	lc.mu.Unlock()
	if sh != nil {
		sh.Quit() // OnBeforeClose lets it close; OnShutdown stops the runs (Services.Shutdown)
	}
}

// offer runs on the bus's goroutine: it keeps the set of runs going. A child's run is part
// of its parent's, which is going as long as it is.
func (lc *lifecycle) offer(ev bus.Event) {
	if ev.ParentCallID != "" {
		return
	}
	switch ev.Type {
	case loopcore.EventRunStarted:
		lc.mu.Lock()
		lc.going[ev.SessionID] = true
		lc.mu.Unlock()
	case loopcore.EventRunFinished:
		lc.mu.Lock()
		delete(lc.going, ev.SessionID)
		lc.mu.Unlock()
		lc.schedule()
	}
}

// runsGoing counts the sessions with a run going, as the runner sees them now: a session
// whose run_finished is on its way no longer counts.
func (lc *lifecycle) runsGoing() int {
	lc.mu.Lock()
	ids := make([]string, 0, len(lc.going))
	for id := range lc.going {
		ids = append(ids, id)
	}
	lc.mu.Unlock()
	n := 0
	for _, id := range ids {
		if lc.c.running(id) {
			n++
		}
	}
	return n
}

// schedule checks, after the grace period, whether a hidden window may quit.
func (lc *lifecycle) schedule() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if !lc.hidden || lc.quitting {
		return
	}
	if lc.timer != nil {
		lc.timer.Stop()
	}
	lc.timer = time.AfterFunc(lc.grace, lc.quitIfIdle)
}

// quitIfIdle quits a hidden window with no run going and nothing held open.
func (lc *lifecycle) quitIfIdle() {
	if lc.runsGoing() > 0 {
		return
	}
	lc.mu.Lock()
	holds := append([]func() bool(nil), lc.holds...)
	lc.mu.Unlock()
	for _, busy := range holds {
		if busy() {
			return
		}
	}
	lc.mu.Lock()
	if !lc.hidden || lc.quitting { // shown again (a launch) or quitting already
		lc.mu.Unlock()
		return
	}
	lc.quitting = true
	sh := lc.shell
	lc.mu.Unlock()
	if sh != nil {
		sh.Quit()
	}
}
