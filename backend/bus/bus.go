// Package bus delivers the runner's events to the front ends: each subscriber in publish order on
// its own goroutine, numbered per session so a gap tells a subscriber it missed a stored event.
package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// Event is one published event: a payload stamped with where it belongs and a per-session
// sequence number. Seq grows by one for every must-deliver event of a session; a delta carries
// the Seq of the last must-deliver event before it and never advances it. So a subscriber that
// sees a gap in Seq has missed something that was stored, and should re-fetch the session.
type Event struct {
	Type      core.EventType
	SessionID string
	RunID     string
	Seq       uint64
	// ParentCallID is set on the events of a child session's run: the task call of the
	// parent session that started it (the child's own session id is SessionID).
	ParentCallID string
	// ParentSessionID is the session of that call (the window shows a child's progress and
	// approvals on the parent's task card).
	ParentSessionID string
	Payload         core.Payload
}

// MarshalJSON writes one flat object: "type", "session_id", "run_id", "seq" and the payload's
// fields (the CLI's --json line and the frontend's event shape).
func (e Event) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("marshal %s payload: %w", e.Type, err)
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("marshal %s payload: not an object: %w", e.Type, err)
	}
	base := []struct {
		k string
		v any
	}{{"type", e.Type}, {"session_id", e.SessionID}, {"run_id", e.RunID}, {"seq", e.Seq}}
	for _, b := range base {
		delete(fields, b.k)
	}
	delete(fields, "parent_call_id")
	delete(fields, "parent_session_id")
	if e.ParentCallID != "" {
		fields["parent_call_id"], _ = json.Marshal(e.ParentCallID)
		fields["parent_session_id"], _ = json.Marshal(e.ParentSessionID)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []byte{'{'}
	for i, b := range base {
		if i > 0 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(b.k)
		vb, _ := json.Marshal(b.v) // strings and numbers always marshal
		out = append(append(append(out, kb...), ':'), vb...)
	}
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		out = append(append(append(append(out, ','), kb...), ':'), fields[k]...)
	}
	return append(out, '}'), nil
}

// busQueue bounds how many must-deliver events may wait for one subscriber before Publish
// blocks (back-pressure). Deltas never block: they merge into a delta at the queue's tail.
const busQueue = 256

// Bus delivers events to subscribers, each in publish order on its own goroutine. It is safe
// for concurrent use. A slow subscriber slows the publisher of must-deliver events (never
// loses them) and sees deltas merged; a panicking subscriber is logged and keeps receiving.
type Bus struct {
	log *slog.Logger

	mu       sync.Mutex
	subs     map[*subscriber]struct{}
	sessions map[string]*sessionSeq
}

type sessionSeq struct {
	mu  sync.Mutex // held while an event is numbered and queued, so queues follow Seq order
	seq uint64
}

type subscriber struct {
	session string // "" for every session
	fn      func(Event)
	done    chan struct{} // closed when the subscriber's ctx ends
	exited  chan struct{} // closed when its goroutine returns
	wake    chan struct{} // capacity 1: something was queued
	space   chan struct{} // capacity 1: something was taken off the queue

	mu    sync.Mutex
	queue []Event
}

// New makes a bus; log receives contained subscriber panics (nil: slog.Default()).
func New(log *slog.Logger) *Bus {
	if log == nil {
		log = slog.Default()
	}
	return &Bus{log: log, subs: map[*subscriber]struct{}{}, sessions: map[string]*sessionSeq{}}
}

// Subscribe calls fn for every event of sessionID ("" for all sessions), in order, on a
// goroutine of its own, until ctx ends. The returned channel closes when that goroutine has
// returned; events still queued then are dropped.
func (b *Bus) Subscribe(ctx context.Context, sessionID string, fn func(Event)) <-chan struct{} {
	s := &subscriber{session: sessionID, fn: fn, done: make(chan struct{}), exited: make(chan struct{}),
		wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		close(s.done)
	})
	go b.deliver(s)
	return s.exited
}

func (b *Bus) deliver(s *subscriber) {
	defer close(s.exited)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		ev := s.queue[0]
		s.queue[0] = Event{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		signal(s.space)
		select {
		case <-s.done:
			return
		default:
		}
		b.call(s, ev)
	}
}

func (b *Bus) call(s *subscriber, ev Event) {
	defer func() {
		if p := recover(); p != nil {
			b.log.Error("event subscriber panicked; it keeps receiving", "event", ev.Type, "session", ev.SessionID, "panic", p)
		}
	}()
	s.fn(ev)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Seq is the sequence number of the session's latest must-deliver event (0: none yet).
// Whatever state is read after Seq returns reflects at least every event up to it, which is
// how a page tells a fresh read from one older than an event it already applied.
func (b *Bus) Seq(sessionID string) uint64 {
	b.mu.Lock()
	ss := b.sessions[sessionID]
	b.mu.Unlock()
	if ss == nil {
		return 0
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.seq
}

// Publish stamps ev with the session's next sequence number (deltas: the current one) and
// queues it for every matching subscriber. For a must-deliver event it waits while a
// subscriber's queue is full, until ctx ends (then it returns ctx's error; subscribers already
// served keep the event). It returns the stamped event.
func (b *Bus) Publish(ctx context.Context, ev Event) (Event, error) {
	if ev.Payload != nil {
		ev.Type = ev.Payload.Type()
	}
	b.mu.Lock()
	ss := b.sessions[ev.SessionID]
	if ss == nil {
		ss = &sessionSeq{}
		b.sessions[ev.SessionID] = ss
	}
	subs := make([]*subscriber, 0, len(b.subs))
	for s := range b.subs {
		if s.session == "" || s.session == ev.SessionID {
			subs = append(subs, s)
		}
	}
	b.mu.Unlock()

	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ev.Type.Lossy() {
		ss.seq++
	}
	ev.Seq = ss.seq
	for _, s := range subs {
		if ev.Type.Lossy() {
			s.push(ev)
			continue
		}
		if err := s.pushWait(ctx, ev); err != nil {
			return ev, fmt.Errorf("publish %s for session %s: %w", ev.Type, ev.SessionID, err)
		}
	}
	return ev, nil
}

// push queues a delta, merging it into a delta of the same stream at the queue's tail.
func (s *subscriber) push(ev Event) {
	s.mu.Lock()
	if n := len(s.queue); n > 0 {
		if merged, ok := merge(s.queue[n-1], ev); ok {
			s.queue[n-1] = merged
			s.mu.Unlock()
			return
		}
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	signal(s.wake)
}

func (s *subscriber) pushWait(ctx context.Context, ev Event) error {
	for {
		s.mu.Lock()
		if len(s.queue) < busQueue {
			s.queue = append(s.queue, ev)
			s.mu.Unlock()
			signal(s.wake)
			return nil
		}
		s.mu.Unlock()
		select {
		case <-s.space:
		case <-s.done:
			return nil // the subscriber left; nothing to deliver to
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// merge joins two deltas of the same stream (same run, same type, same tool call).
func merge(a, b Event) (Event, bool) {
	if a.Type != b.Type || a.RunID != b.RunID || a.SessionID != b.SessionID {
		return a, false
	}
	switch pa := a.Payload.(type) {
	case core.DeltaPayload:
		pb := b.Payload.(core.DeltaPayload)
		pa.Text += pb.Text
		b.Payload = pa
		return b, true
	case core.ToolOutputPayload:
		pb := b.Payload.(core.ToolOutputPayload)
		if pa.CallID != pb.CallID {
			return a, false
		}
		pa.Text += pb.Text
		b.Payload = pa
		return b, true
	}
	return a, false
}
