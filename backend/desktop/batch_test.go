package desktop

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A burst of loop events reaches the page in far fewer emits than events, every event
// exactly once and in the order the bus gave them, even when the page is slow to take an
// emit (the window's EventsEmit waits for GTK's main loop).
func TestBatcherKeepsEveryEventInOrderInFewerEmits(t *testing.T) {
	var mu sync.Mutex
	var got []int
	emits := 0
	done := make(chan struct{})
	const n = 2000
	b := newBatcher(context.Background(), EventLoop, func(name string, data any) {
		batch, ok := data.(EventBatch)
		if name != EventLoop || !ok {
			t.Errorf("emit(%q, %T), want an EventBatch on %q", name, data, EventLoop)
			return
		}
		time.Sleep(time.Millisecond) // a page busy drawing the last batch
		mu.Lock()
		defer mu.Unlock()
		emits++
		for _, ev := range batch {
			got = append(got, ev.(int))
		}
		if len(got) == n {
			close(done)
		}
	}, 2*time.Millisecond)
	for i := range n {
		b.add(i)
		if i%100 == 0 {
			time.Sleep(time.Millisecond) // bursts, as a streaming reply gives them
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%d of %d events reached the page", len(got), n)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, v := range got {
		if v != i {
			t.Fatalf("event %d arrived as the %dth", v, i)
		}
	}
	if emits > n/10 {
		t.Errorf("%d emits for %d events: not batched", emits, n)
	}
}

// A lone event (an approval request, a run finishing) is sent on its own: nothing waits for a
// batch to fill.
func TestBatcherSendsALoneEventWithinAFrame(t *testing.T) {
	got := make(chan any, 1)
	b := newBatcher(context.Background(), EventLoop, func(_ string, data any) { got <- data }, batchInterval)
	b.add("approval_requested")
	select {
	case data := <-got:
		if batch := data.(EventBatch); len(batch) != 1 || batch[0] != "approval_requested" {
			t.Fatalf("emitted %v", batch)
		}
	case <-time.After(5 * time.Second): // a frame, on a machine loaded by other tests
		t.Fatal("a lone event never reached the page")
	}
}

// Once the window has shut down nothing more is sent: the page is gone.
func TestBatcherSendsNothingAfterTheWindowCloses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	emitted := make(chan struct{}, 1)
	b := newBatcher(ctx, EventLoop, func(string, any) { emitted <- struct{}{} }, time.Hour) // flushed by hand below
	b.add("run_finished")
	cancel()
	b.flush() // what the timer does when it fires
	select {
	case <-emitted:
		t.Fatal("an event was sent after the window closed")
	case <-time.After(20 * time.Millisecond):
	}
}

// The batcher throttles, it does not debounce: an event that finds the channel quiet for a
// frame goes out at once (here the frame is an hour long, so only an immediate flush can
// deliver it), and what follows it within the frame waits for the frame's end, in order.
func TestBatcherSendsTheFirstEventAfterAQuietFrameAtOnce(t *testing.T) {
	got := make(chan EventBatch, 4)
	b := newBatcher(context.Background(), EventLoop, func(_ string, data any) { got <- data.(EventBatch) }, time.Hour)
	b.add("rows_stored")
	select {
	case batch := <-got:
		if len(batch) != 1 || batch[0] != "rows_stored" {
			t.Fatalf("first emit %v, want the lone event", batch)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first event after a quiet frame was held back")
	}
	b.add("assistant_message")
	b.add("usage")
	b.mu.Lock()
	held, scheduled := len(b.pending), b.scheduled
	b.mu.Unlock()
	if held != 2 || !scheduled {
		t.Fatalf("within the frame: %d events held, flush scheduled %v; want 2 held until the frame ends", held, scheduled)
	}
	b.flush() // what the timer does when the frame ends
	if batch := <-got; len(batch) != 2 || batch[0] != "assistant_message" || batch[1] != "usage" {
		t.Fatalf("second emit %v, want both events in order", batch)
	}
}
