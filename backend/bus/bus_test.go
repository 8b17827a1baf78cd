package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

func TestBusOrderAndSeqPerSession(t *testing.T) {
	bus := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []Event
	all := make(chan struct{})
	exited := bus.Subscribe(ctx, "s1", func(e Event) {
		mu.Lock()
		got = append(got, e)
		if e.Type == core.EventRunFinished {
			close(all)
		}
		mu.Unlock()
	})
	pub := func(session string, p core.Payload) {
		if _, err := bus.Publish(context.Background(), Event{SessionID: session, RunID: "r", Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	pub("s1", core.RunStartedPayload{Prompt: "x"})
	pub("s2", core.RunStartedPayload{Prompt: "other session"}) // not ours, and numbered apart
	pub("s1", core.TextDelta("a"))
	pub("s1", core.ToolStartedPayload{CallID: "c"})
	pub("s1", core.RunFinishedPayload{Result: core.Result{Status: core.StopCompleted}})
	<-all
	cancel()
	<-exited
	var seqs []uint64
	var types []string
	for _, e := range got {
		seqs = append(seqs, e.Seq)
		types = append(types, string(e.Type))
	}
	if strings.Join(types, ",") != "run_started,text_delta,tool_started,run_finished" {
		t.Errorf("types %v", types)
	}
	if want := []uint64{1, 1, 2, 3}; !equalU(seqs, want) {
		t.Errorf("seqs %v, want %v (deltas do not advance seq; other sessions count apart)", seqs, want)
	}
}

func equalU(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A subscriber that is stuck sees deltas merged into one, and must-deliver events all arrive,
// in order, once it moves again.
func TestBusCoalescesDeltasForSlowSubscriber(t *testing.T) {
	bus := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := make(chan struct{})
	var mu sync.Mutex
	var got []Event
	done := make(chan struct{})
	bus.Subscribe(ctx, "", func(e Event) {
		<-gate
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
		if e.Type == core.EventRunFinished {
			close(done)
		}
	})
	p := func(pl core.Payload) {
		if _, err := bus.Publish(ctx, Event{SessionID: "s", RunID: "r", Payload: pl}); err != nil {
			t.Fatal(err)
		}
	}
	p(core.RunStartedPayload{}) // the subscriber blocks on this one
	for range 1000 {
		p(core.TextDelta("x"))
	}
	p(core.ToolFinishedPayload{CallID: "c"})
	for range 10 {
		p(core.ToolOutputPayload{CallID: "c2", Text: "o"})
	}
	p(core.RunFinishedPayload{})
	close(gate)
	<-done
	var text, out strings.Builder
	var deltas int
	for _, e := range got {
		switch pl := e.Payload.(type) {
		case core.DeltaPayload:
			deltas++
			text.WriteString(pl.Text)
		case core.ToolOutputPayload:
			out.WriteString(pl.Text)
		}
	}
	if text.Len() != 1000 || out.Len() != 10 {
		t.Errorf("lost delta text: %d text, %d output", text.Len(), out.Len())
	}
	if deltas > 2 {
		t.Errorf("%d text deltas delivered, want them merged", deltas)
	}
	if got[len(got)-1].Type != core.EventRunFinished || got[0].Type != core.EventRunStarted {
		t.Errorf("order broken: first %s last %s", got[0].Type, got[len(got)-1].Type)
	}
}

// Must-deliver events are never dropped: a full queue makes the publisher wait.
func TestBusBackPressure(t *testing.T) {
	bus := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gate := make(chan struct{})
	var n int
	var mu sync.Mutex
	bus.Subscribe(ctx, "", func(Event) {
		<-gate
		mu.Lock()
		n++
		mu.Unlock()
	})
	published := make(chan error, 1)
	go func() {
		for i := 0; i < busQueue+10; i++ {
			if _, err := bus.Publish(ctx, Event{SessionID: "s", Payload: core.ToolFinishedPayload{}}); err != nil {
				published <- err
				return
			}
		}
		published <- nil
	}()
	select {
	case err := <-published:
		t.Fatalf("publisher finished (%v) while the subscriber was stuck: events would be lost", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	if err := <-published; err != nil {
		t.Fatal(err)
	}
	// A publisher whose ctx ends stops waiting with an error.
	stuck := make(chan struct{})
	bus2 := New(nil)
	bus2.Subscribe(ctx, "", func(Event) { <-stuck })
	defer close(stuck)
	pctx, pcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer pcancel()
	var err error
	for i := 0; i < busQueue+2 && err == nil; i++ {
		_, err = bus2.Publish(pctx, Event{SessionID: "s", Payload: core.UsagePayload{}})
	}
	if err == nil {
		t.Error("publishing into a full queue never reported the expired context")
	}
}

func TestBusContainsPanickingSubscriber(t *testing.T) {
	var logs bytes.Buffer
	bus := New(slog.New(slog.NewTextHandler(&logs, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var calls int
	bus.Subscribe(ctx, "", func(e Event) {
		calls++
		if e.Type == core.EventRunStarted {
			panic("boom")
		}
		close(done)
	})
	var okCalls int
	okDone := make(chan struct{})
	bus.Subscribe(ctx, "", func(e Event) {
		okCalls++
		if e.Type == core.EventRunFinished {
			close(okDone)
		}
	})
	bus.Publish(ctx, Event{SessionID: "s", Payload: core.RunStartedPayload{}})
	bus.Publish(ctx, Event{SessionID: "s", Payload: core.RunFinishedPayload{}})
	<-done
	<-okDone
	if calls != 2 || okCalls != 2 {
		t.Errorf("calls %d / %d, want 2 each", calls, okCalls)
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Errorf("panic not logged: %q", logs.String())
	}
}

func TestEventJSONIsFlat(t *testing.T) {
	e := Event{Type: core.EventToolCall, SessionID: "s", RunID: "r", Seq: 7,
		Payload: core.ToolCallPayload{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"tool_call","session_id":"s","run_id":"r","seq":7,"arguments":{"path":"a"},"id":"c1","name":"read_file"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// run_finished repeats session_id and run_id once, not twice.
	b, _ = json.Marshal(Event{Type: core.EventRunFinished, SessionID: "s", RunID: "r", Payload: core.RunFinishedPayload{Result: core.Result{SessionID: "s", RunID: "r"}}})
	if strings.Count(string(b), `"run_id"`) != 1 {
		t.Errorf("duplicate keys: %s", b)
	}
}
