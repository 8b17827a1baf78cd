package desktop

import (
	"runtime/debug"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
)

// releaseDelay is how long after the last run_finished the window gives memory back: long
// enough that a run started from the queue or by the person right away is not slowed by it.
const releaseDelay = 2 * time.Second

// memoryRelease hands the Go heap's free pages back to the OS releaseDelay after the last
// run_finished. A long run raises the heap (rows, requests, the streamed reply);
// the runtime returns free pages only gradually, so a window that streamed a 2,000-row session
// kept several MB it no longer used (docs/benchmarks.md, "Memory stays flat"). The cost is one
// forced collection of a heap of a few MB per burst of finished runs (a run started in those
// 2 s pays it while it runs).
type memoryRelease struct {
	delay time.Duration // 0: releaseDelay
	mu    sync.Mutex
	timer *time.Timer
}

func (m *memoryRelease) offer(ev bus.Event) {
	if ev.Type != loopcore.EventRunFinished {
		return
	}
	m.schedule()
}

// settle schedules one release releaseDelay after the window starts: start-up (migrations,
// package inits, the bindings, the page's first calls) leaves garbage the runtime returns only
// gradually, about 0.8 MB of the idle window's resident memory (docs/benchmarks.md, "Idle
// start-up and first paint").
func (m *memoryRelease) settle() { m.schedule() }

func (m *memoryRelease) schedule() {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.delay
	if d == 0 {
		d = releaseDelay
	}
	if m.timer == nil {
		m.timer = time.AfterFunc(d, release)
		return
	}
	m.timer.Reset(d)
}

// release gives back what the Go heap and the C heap hold free.
func release() {
	debug.FreeOSMemory()
	trimCHeap()
}
