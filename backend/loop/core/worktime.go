package core

import (
	"fmt"
	"slices"
	"time"
)

// The time budget (Limits.Timeout) counts the run's own time — the model's and the tools' —
// and not the person's: the time the run spends waiting for approvals is set aside as it
// passes (tick), so a call left waiting over lunch does not stop the run with timeout. The run
// waits for the person in PhaseApproving (from RequestApproval to the last ApprovalDecided of
// the turn) and while a task call's child waits for them (ChildWaiting: the child's own
// approvals or its children's), since the parent cannot go on before that child does.

// TimeMeterNote is what the Time meter says it counts.
const TimeMeterNote = "The model's and the tools' time. Time waiting for your approval is not counted."

// worked is the run's time so far, the person's waiting excluded.
func (s State) worked() time.Duration { return s.Now.Sub(s.StartedAt) - s.waited }

// waiting reports whether the run waits for the person now: its own approvals, or a running
// task call's child's.
func (s State) waiting() bool {
	if s.Phase == PhaseApproving {
		return true
	}
	return slices.ContainsFunc(s.calls, func(c callState) bool { return c.childWaits && c.Status == callApproved })
}

// Waiting reports whether the run waits for the person now, for its own approvals or a
// child's: what a child's driver tells its parent's core with ChildWaiting when it changes.
func (s State) Waiting() bool { return s.Phase != PhaseDone && s.waiting() }

// WorkedAt returns the run's time at now, time spent waiting for the person excluded: what
// the time budget counts, and what a child's budget is cut from.
func (s State) WorkedAt(now time.Time) time.Duration { return tick(s, now).worked() }

// Waited returns the time the run has spent waiting for the person so far.
func (s State) Waited() time.Duration { return s.waited }

// Deadline is the wall-clock time at which the time budget runs out if the run keeps working,
// for the driver's timer (it feeds Ticked then). ok is false while the run waits for the
// person (a child of it included), when it has no time budget, or when it is done.
func (s State) Deadline() (at time.Time, ok bool) {
	if s.Limits.Timeout <= 0 || s.waiting() || s.Phase == PhaseHook || s.Phase == PhaseDone || s.Phase == PhaseIdle {
		return time.Time{}, false
	}
	return s.StartedAt.Add(s.waited + s.Limits.Timeout), true
}

// countsFrom is the wall-clock time the Time meter counts from while the run is working:
// its value then grows with the clock as (now - countsFrom). Zero while the run waits for
// the person or is over: the meter holds still.
func (s State) countsFrom() time.Time {
	if s.waiting() || s.Phase == PhaseDone || s.Phase == PhaseIdle {
		return time.Time{}
	}
	return s.StartedAt.Add(s.waited)
}

// onChildWaiting marks task call in.CallID's child as waiting for the person or not. When that
// changes whether the run waits, the meters are sent again: the Time meter holds still while a
// child waits and counts again, from the time it waited, once none does.
func onChildWaiting(s State, in ChildWaiting) (State, []Effect, error) {
	i, err := findCall(s, in.CallID, callApproved)
	if err != nil {
		return s, nil, err
	}
	if s.tools[s.calls[i].Call.Name].Kind != ToolTask {
		return s, nil, fmt.Errorf("call %s (%s) starts no child session: %w", in.CallID, s.calls[i].Call.Name, ErrUnexpectedInput)
	}
	was := s.waiting()
	s.calls[i].childWaits = in.Waiting
	if s.waiting() == was {
		return s, nil, nil
	}
	return s, []Effect{Emit{s.budget()}}, nil
}
