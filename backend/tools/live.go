package tools

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// RunningCall is a call of a session's running run that is executing now (its tool_started
// was published and its result is not in yet): a shell command, or a task call whose child
// session works. The window learns of running calls from tool_started events; a page opened
// or reloaded while one runs reads them from the runner (loop.Runner.RunningCalls, desktop's
// Chat.Live), so it shows the call running rather than "Waiting for the model…".
type RunningCall struct {
	CallID    string    `json:"call_id"`
	Name      string    `json:"name"`
	StartedAt time.Time `json:"started_at"`
}

// LiveCalls is the set of a run's executing calls, by call id (unique within a turn, and
// one turn's calls run at a time). The run's workers add and remove; Chat.Live reads. The
// zero value is ready.
type LiveCalls struct {
	mu    sync.Mutex
	calls map[string]RunningCall
}

// Add records a call that started.
func (l *LiveCalls) Add(c RunningCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		l.calls = map[string]RunningCall{}
	}
	l.calls[c.CallID] = c
}

// Remove forgets a call whose result is in.
func (l *LiveCalls) Remove(callID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.calls, callID)
}

// List is the calls in the order they started.
func (l *LiveCalls) List() []RunningCall {
	l.mu.Lock()
	out := make([]RunningCall, 0, len(l.calls))
	for _, c := range l.calls {
		out = append(out, c)
	}
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b RunningCall) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.CallID, b.CallID)
	})
	return out
}
