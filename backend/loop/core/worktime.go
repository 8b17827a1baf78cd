package core

import "time"

// The time budget (Limits.Timeout) counts the run's own time — the model's and the tools' —
// and not the person's: the time the run spends waiting for approvals (PhaseApproving, from
// RequestApproval to the last ApprovalDecided of the turn) is set aside as it passes (tick),
// so a call left waiting over lunch does not stop the run with timeout.

// TimeMeterNote is what the Time meter says it counts.
const TimeMeterNote = "The model's and the tools' time. Time waiting for your approval is not counted."

// worked is the run's time so far, the person's waiting excluded.
func (s State) worked() time.Duration { return s.Now.Sub(s.StartedAt) - s.waited }

// WorkedAt returns the run's time at now, time spent waiting for the person excluded: what
// the time budget counts, and what a child's budget is cut from.
func (s State) WorkedAt(now time.Time) time.Duration { return tick(s, now).worked() }

// Waited returns the time the run has spent waiting for the person so far.
func (s State) Waited() time.Duration { return s.waited }

// Deadline is the wall-clock time at which the time budget runs out if the run keeps working,
// for the driver's timer (it feeds Ticked then). ok is false while the run waits for the
// person, when it has no time budget, or when it is done.
func (s State) Deadline() (at time.Time, ok bool) {
	if s.Limits.Timeout <= 0 || s.Phase == PhaseApproving || s.Phase == PhaseHook || s.Phase == PhaseDone || s.Phase == PhaseIdle {
		return time.Time{}, false
	}
	return s.StartedAt.Add(s.waited + s.Limits.Timeout), true
}

// countsFrom is the wall-clock time the Time meter counts from while the run is working:
// its value then grows with the clock as (now - countsFrom). Zero while the run waits for
// the person or is over: the meter holds still.
func (s State) countsFrom() time.Time {
	if s.Phase == PhaseApproving || s.Phase == PhaseDone || s.Phase == PhaseIdle {
		return time.Time{}
	}
	return s.StartedAt.Add(s.waited)
}
