package core

import (
	"errors"
	"testing"
	"time"
)

// While a task call's child waits for the person the run has no deadline (the runner sets no
// timer) and reports that it waits, for its own parent; once the child goes on, the deadline
// is pushed back by the wait. A child's waiting is only heard of for a running task call.
func TestChildWaitingSetsTheDeadlineAside(t *testing.T) {
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tools := []ToolInfo{{Name: "task", ReadOnly: true, Kind: ToolTask}, {Name: "list_dir", ReadOnly: true}}
	s := mustNext(t, State{}, Started{Now: t0, SessionID: "s", RunID: "r", Prompt: "go", Tools: tools, Limits: Limits{Timeout: time.Minute}})
	s = mustNext(t, s, ModelResponded{Now: at(10 * time.Second), Response: ModelResponse{Status: ResponseOK,
		ToolCalls: []Call{{ID: "t1", Name: "task", Arguments: "{}"}, {ID: "l1", Name: "list_dir", Arguments: "{}"}}}})
	s = mustNext(t, s, ApprovalDecided{Now: at(10 * time.Second), CallID: "t1", Approved: true})
	s = mustNext(t, s, ApprovalDecided{Now: at(10 * time.Second), CallID: "l1", Approved: true})
	if d, ok := s.Deadline(); !ok || !d.Equal(at(time.Minute)) || s.Waiting() {
		t.Fatalf("working: deadline %v %v, waiting %v; want %v and not waiting", d, ok, s.Waiting(), at(time.Minute))
	}

	for _, bad := range []ChildWaiting{{Now: at(11 * time.Second), CallID: "l1", Waiting: true}, {Now: at(11 * time.Second), CallID: "nope", Waiting: true}} {
		if _, _, err := Next(s, bad); !errors.Is(err, ErrUnexpectedInput) && !errors.Is(err, ErrUnknownCall) {
			t.Errorf("%+v: err %v, want a refusal", bad, err)
		}
	}

	s = mustNext(t, s, ChildWaiting{Now: at(20 * time.Second), CallID: "t1", Waiting: true})
	if _, ok := s.Deadline(); ok || !s.Waiting() {
		t.Fatalf("child waiting: deadline ok %v, waiting %v; want no deadline and waiting", ok, s.Waiting())
	}
	if w := s.WorkedAt(at(time.Hour)); w != 20*time.Second {
		t.Fatalf("worked an hour later, the child still waiting: %v, want 20s", w)
	}
	s = mustNext(t, s, ChildWaiting{Now: at(time.Hour), CallID: "t1", Waiting: false})
	if d, ok := s.Deadline(); !ok || !d.Equal(at(time.Hour+40*time.Second)) || s.Waiting() {
		t.Fatalf("child went on: deadline %v %v, waiting %v; want %v", d, ok, s.Waiting(), at(time.Hour+40*time.Second))
	}
	// A child still marked waiting when its call is answered waits no more.
	s = mustNext(t, s, ChildWaiting{Now: at(time.Hour + time.Second), CallID: "t1", Waiting: true})
	s = mustNext(t, s, ToolFinished{Now: at(time.Hour + 2*time.Second), CallID: "t1", Content: "done"})
	if _, ok := s.Deadline(); !ok || s.Waiting() {
		t.Fatalf("after the task call's result: deadline ok %v, waiting %v", ok, s.Waiting())
	}
}

func mustNext(t *testing.T, s State, in Input) State {
	t.Helper()
	next, _, err := Next(s, in)
	if err != nil {
		t.Fatalf("%T: %v", in, err)
	}
	return next
}
