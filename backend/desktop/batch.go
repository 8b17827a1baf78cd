package desktop

import (
	"context"
	"sync"
	"time"
)

// EventBatch is several events of one channel sent to the page in one emit, in order. An
// Emitter given an EventBatch sends its elements as the event's arguments (the window's
// runtime.EventsEmit spreads them, so the page's listener is called once with all of them);
// the page's listener takes them as `(...events)`.
type EventBatch []any

// batchInterval is the shortest time between two emits of a channel: one frame at 60 Hz.
const batchInterval = 16 * time.Millisecond

// batcher sends a channel's events at most once per batchInterval. Wails sends every
// emit to WebKit as a new script (`window.wails.EventsNotify('<JSON>')`, evaluated by
// JavaScriptCore, one main-loop callback each); a 2,000-row stream was thousands of
// distinct scripts, and the web process kept tens of MB it took while evaluating them
// (docs/benchmarks.md, "Memory stays flat"). One script per frame carries the same events.
//
// It throttles rather than debounces: an event that finds the channel quiet for a frame goes
// out at once, and only what follows it within the frame waits for the frame's end. A lone
// event (an approval request, the answer's row after a long model call) is never held back a
// frame; a streaming reply's deltas still go out one batch per frame.
type batcher struct {
	ctx   context.Context // the window's: once it ends, nothing is sent (the page is gone)
	name  string
	emit  Emitter
	every time.Duration

	mu        sync.Mutex // guards pending, scheduled and last
	pending   EventBatch
	scheduled bool       // a flush is due for pending
	last      time.Time  // when the last batch was cut
	out       sync.Mutex // held while emitting, so batches reach the page in the order they were cut
}

func newBatcher(ctx context.Context, name string, emit Emitter, every time.Duration) *batcher {
	return &batcher{ctx: ctx, name: name, emit: emit, every: every}
}

// add queues ev. The first event of an empty batch schedules its flush: at once when the
// last batch was cut a frame or more ago, else when that frame ends.
func (b *batcher) add(ev any) {
	b.mu.Lock()
	b.pending = append(b.pending, ev)
	if b.scheduled {
		b.mu.Unlock()
		return
	}
	b.scheduled = true
	wait := max(b.every-time.Since(b.last), 0)
	b.mu.Unlock()
	if wait == 0 {
		go b.flush()
		return
	}
	time.AfterFunc(wait, b.flush)
}

// flush emits what is queued. A flush that finds the batch already taken by an earlier
// one emits nothing.
func (b *batcher) flush() {
	b.out.Lock()
	defer b.out.Unlock()
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.scheduled = false
	if len(batch) > 0 {
		b.last = time.Now()
	}
	b.mu.Unlock()
	if len(batch) > 0 && b.ctx.Err() == nil {
		b.emit(b.name, batch)
	}
}
