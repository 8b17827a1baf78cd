package core

import "fmt"

// A run that completes may not be over yet: a Stop hook (SubagentStop for a child session)
// reads the answer and may send the run back to the model with its reason, or end it. The
// core fires it (FireHook, once the answer is stored) and decides what its answer does: a
// stop ends the run as hook_stopped; a block goes on in the same run, with the reason as a
// note, at most MaxStopContinuations times in a row and only while every budget has some
// left (Limits.Left of what the whole run spent); anything else completes the run.

// MaxStopContinuations bounds how many times in a row Stop hooks may send a completed run
// back to the model.
const MaxStopContinuations = 3

// NoteSourceHook is the Source of note rows a hook's context or Stop reason becomes.
const NoteSourceHook = "hook"

// HookStopText is what the person reads of a hook's "continue": false (the run's error).
func HookStopText(event, stopReason string) string {
	return fmt.Sprintf("stopped by a %s hook: %s", event, orDefault(stopReason, "no reason given"))
}

// StopHookNote is the note a Stop hook's block becomes: the model reads why it must go on.
func StopHookNote(reason string) string {
	return "A Stop hook did not let the run end yet. Its reason:\n" + reason
}

// complete ends a run whose model answered without calls: at once, or after the Stop hook.
// A compaction the person asked for fires none.
func complete(s State) (State, []Effect) {
	if s.stopHook == "" || s.compactOnly {
		return stop(s, StopCompleted, "")
	}
	s.Phase = PhaseHook
	return s, []Effect{FireHook{Event: s.stopHook, Active: s.continued > 0}}
}

// HookPreCompact is the event fired before a summary call.
const HookPreCompact = "PreCompact"

// preCompact fires the PreCompact hook before compaction c: its hooks cannot veto the
// compaction alone, but a "continue": false ends the run before the summary call.
func preCompact(s State, c Compact) (State, []Effect) {
	s.Phase, s.compacting = PhaseHook, &c
	trigger := "auto"
	if s.compactOnly {
		trigger = "manual"
	}
	return s, []Effect{FireHook{Event: HookPreCompact, Trigger: trigger}}
}

// onHookAnswered decides what a hook's answer does: PreCompact's lets the compaction go on or
// ends the run; the Stop hook's is onStopAnswered.
func onHookAnswered(s State, in HookAnswered) (State, []Effect) {
	if c := s.compacting; c != nil {
		s.compacting = nil
		if in.Stop {
			return stop(s, StopHook, HookStopText(HookPreCompact, in.StopReason))
		}
		s.Phase = PhaseCompacting
		return s, []Effect{*c}
	}
	return onStopAnswered(s, in)
}

// onStopAnswered decides what the Stop hook's answer does to the completed run.
func onStopAnswered(s State, in HookAnswered) (State, []Effect) {
	if in.Stop {
		// "continue": false takes precedence over a block: the run ends, and says why.
		return stop(s, StopHook, HookStopText(s.stopHook, in.StopReason))
	}
	if _, left := s.Limits.Left(s.Counters, s.worked()); !in.Block || s.continued >= MaxStopContinuations || !left {
		return stop(s, StopCompleted, "")
	}
	s.continued++
	note := StopHookNote(in.Reason)
	s.ContextTokens += EstimateMessage(note)
	out := []Effect{Persist{[]Row{NoteRow{Source: NoteSourceHook, Text: note}}}, Emit{s.budget()}}
	s, more := nextTurn(s)
	return s, append(out, more...)
}
