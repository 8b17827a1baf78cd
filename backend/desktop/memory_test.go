package desktop

import (
	"runtime"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
)

var sink [][]byte

// retained is the heap the runtime holds free but has not given back to the OS.
func retained() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapIdle - m.HeapReleased
}

// After a run finishes the window gives the heap's free pages back: a long run's garbage
// does not stay in the window's memory. Other events schedule nothing.
func TestFreeHeapGoesBackToTheOSAfterARunFinishes(t *testing.T) {
	m := &memoryRelease{delay: 10 * time.Millisecond}
	m.offer(bus.Event{Type: loopcore.EventToolFinished})
	if m.timer != nil {
		t.Fatal("a tool_finished event scheduled a release")
	}
	garbage()
	m.offer(bus.Event{Type: loopcore.EventRunFinished})
	waitReleased(t, "run_finished")
}

// What start-up left in the heap goes back once the window has started, with no run at all.
func TestStartUpHeapGoesBackToTheOS(t *testing.T) {
	m := &memoryRelease{delay: 10 * time.Millisecond}
	garbage()
	m.settle()
	waitReleased(t, "the window started")
}

// garbage leaves 64 MB of free heap the runtime has not given back yet.
func garbage() {
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	sink = nil
	runtime.GC()
}

func waitReleased(t *testing.T, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for retained() > 4<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("%d MB of free heap still held 5 s after %s", retained()>>20, after)
		}
		time.Sleep(5 * time.Millisecond) // polling the runtime's figure, not waiting for a fixed time
	}
}
