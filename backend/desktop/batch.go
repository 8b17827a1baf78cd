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

// batchInterval is how long the first event of a burst waits for the others: one frame at
// 60 Hz, so a reply's deltas reach the page at most one frame later than they would alone.
const batchInterval = 16 * time.Millisecond

// batcher coalesces a channel's events into one emit per batchInterval. Wails sends every
// emit to WebKit as a new script (`window.wails.EventsNotify('<JSON>')`, evaluated by
// JavaScriptCore, one main-loop callback each); a 2,000-row stream was thousands of
// distinct scripts, and the web process kept tens of MB it took while evaluating them
// (docs/benchmarks.md, "Memory stays flat"). One script per frame carries the same events.
type batcher struct {
	ctx   context.Context // the window's: once it ends, nothing is sent (the page is gone)
	name  string
	emit  Emitter
	every time.Duration

	mu      sync.Mutex // guards pending
	pending EventBatch
	out     sync.Mutex // held while emitting, so batches reach the page in the order they were cut
}

func newBatcher(ctx context.Context, name string, emit Emitter, every time.Duration) *batcher {
	return &batcher{ctx: ctx, name: name, emit: emit, every: every}
}

// add queues ev; the first event of an empty batch starts its timer.
func (b *batcher) add(ev any) {
	b.mu.Lock()
	b.pending = append(b.pending, ev)
	first := len(b.pending) == 1
	b.mu.Unlock()
	if first {
		time.AfterFunc(b.every, b.flush)
	}
}

// flush emits what is queued. A timer that finds the batch already taken by an earlier
// flush emits nothing.
func (b *batcher) flush() {
	b.out.Lock()
	defer b.out.Unlock()
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(batch) > 0 && b.ctx.Err() == nil {
		b.emit(b.name, batch)
	}
}
