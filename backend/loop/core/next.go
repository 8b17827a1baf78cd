package core

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Next advances a run by one input. It returns the new state and the effects the driver must
// carry out, in order. An input the current phase does not expect is an error wrapping
// ErrUnexpectedInput (or ErrFinished after Done) and leaves the state unchanged.
func Next(s State, in Input) (State, []Effect, error) {
	if s.Phase == PhaseDone {
		return s, nil, fmt.Errorf("%T: %w", in, ErrFinished)
	}
	switch ok, known := accepts(s.Phase, in); {
	case !known:
		return s, nil, fmt.Errorf("%T: %w", in, ErrBadInput)
	case !ok:
		return s, nil, fmt.Errorf("%T in phase %s: %w", in, s.Phase, ErrUnexpectedInput)
	}
	// The state is a value, but its slices and map are shared with the caller's copy: clone
	// them so a rejected input or a retained old state never sees later changes.
	s.calls = slices.Clone(s.calls)
	s.seen = maps.Clone(s.seen)
	s.queued = slices.Clone(s.queued)
	return apply(s, in)
}

// accepts says whether a run in phase p expects in; known is false for an input type the
// core does not define.
func accepts(p Phase, in Input) (ok, known bool) {
	switch in.(type) {
	case Started:
		return p == PhaseIdle, true
	case ModelResponded:
		return p == PhaseStreaming, true
	case ApprovalDecided:
		return p == PhaseApproving, true
	case ToolFinished:
		return p == PhaseTools, true
	case Compacted:
		return p == PhaseCompacting, true
	case HookAnswered:
		return p == PhaseHook, true
	case ChildWaiting:
		return p == PhaseTools, true // a child runs only while its task call does
	case CancelRequested, Failed, StorageFailed, MessageQueued, QueueWithdrawn, Ticked, Stored, Recorded:
		return p != PhaseIdle, true
	}
	return false, false
}

// apply handles an input accepts let through; every input but Started first moves the clock.
func apply(s State, in Input) (State, []Effect, error) {
	var out []Effect
	switch in := in.(type) {
	case Started:
		return onStarted(s, in)
	case ModelResponded:
		s, out = onModel(tick(s, in.Now), in.Response)
	case ApprovalDecided:
		return onApproval(tick(s, in.Now), in)
	case ToolFinished:
		return onToolFinished(tick(s, in.Now), in)
	case Compacted:
		s, out = onCompacted(tick(s, in.Now), in)
	case HookAnswered:
		s, out = onHookAnswered(tick(s, in.Now), in)
	case ChildWaiting:
		return onChildWaiting(tick(s, in.Now), in)
	case CancelRequested:
		if s.Phase == PhaseHook && s.compacting == nil && in.Reason == "" {
			// The answer is in: stopping its Stop hook does not undo it.
			s, out = stop(tick(s, in.Now), StopCompleted, "")
			break
		}
		reason, detail := StopCancelled, "cancelled by the person"
		if in.Reason != "" {
			reason, detail = in.Reason, in.Detail
		}
		var more []Effect
		s, out = salvage(tick(s, in.Now), in.Partial)
		s, more = stop(s, reason, detail)
		out = append(out, more...)
	case Failed:
		s, out = stop(tick(s, in.Now), StopError, in.Err)
	case StorageFailed:
		s, out = storageStop(tick(s, in.Now), in.Fault)
	case MessageQueued:
		return onQueued(tick(s, in.Now), in)
	case QueueWithdrawn:
		s, out = onWithdrawn(tick(s, in.Now), in)
	case Stored:
		s = appendRows(s, in.Rows)
	case Recorded:
		if len(in.Rows) > 0 {
			out = []Effect{Persist{in.Rows}}
		}
	case Ticked:
		s = tick(s, in.Now)
		// While the Stop hook runs the run's work is done: its time bounds only a next turn.
		if r, detail := s.hardStop(); r == StopTimeout && s.Phase != PhaseHook {
			s, out = stop(s, r, detail)
		}
	}
	return s, out, nil
}

// tick moves the clock forward; a driver whose clock steps back never makes time run backwards.
// Time that passes while the run waits for the person (waiting: its own approvals or a
// child's) is the person's: it is added to waited, and the time budget does not count it
// (worked).
func tick(s State, now time.Time) State {
	if now.After(s.Now) {
		if s.waiting() {
			s.waited += now.Sub(s.Now)
		}
		s.Now = now
	}
	return s
}

func onStarted(s State, in Started) (State, []Effect, error) {
	if in.SessionID == "" || in.RunID == "" || in.Now.IsZero() {
		return s, nil, fmt.Errorf("started without session id, run id or time: %w", ErrBadInput)
	}
	s.SessionID, s.RunID, s.Model, s.Limits = in.SessionID, in.RunID, in.Model, in.Limits
	s.StartedAt, s.Now = in.Now, in.Now
	s.ContextTokens = in.ContextTokens
	s.seen = map[string]int{}
	s.tools, s.plan = make(map[string]ToolInfo, len(in.Tools)), in.Mode == ModePlan
	s.approval, s.agent, s.stopHook, s.preCompact = in.Approval, in.Agent, in.StopHook, in.PreCompactHook
	s.noPerson = in.NoPerson
	for _, t := range in.Tools {
		if t.Kind != ToolTask || mayNest(in.Depth, in.TaskGranted) {
			s.tools[t.Name] = t
		}
	}
	s.queued = slices.Clone(in.Queued)
	s = appendRows(s, in.Rows)
	if in.PreviousStop == StopContextExceeded {
		s.recover = InFlight(s.rowsOf())
	}
	out := []Effect{Emit{RunStartedPayload{Prompt: in.Prompt, Model: in.Model, Workspace: in.Workspace, Sandbox: in.Sandbox,
		StartedAt: in.Now, Mode: in.Mode, MCPFailed: in.MCPFailed, ThinkingBudget: in.ThinkingBudget, ImagesDropped: in.ImagesDropped,
		HarnessTokens: in.HarnessTokens}}}
	var after []Effect
	if len(in.AfterPrompt) > 0 {
		after = []Effect{Persist{in.AfterPrompt}}
	}
	if in.CompactThrough > 0 {
		// A compaction the person asked for ends with its summary, not an answer: it never
		// reaches the completion a Stop hook judges (compact_here_stop_hook).
		s.compactOnly = true
		s, more := compact(s, s.Limits.keepTurns(), false, in.CompactThrough)
		return s, append(append(out, after...), more...), nil
	}
	if in.Prompt != "" || len(in.PromptImages) > 0 {
		out = append(out, Persist{[]Row{UserRow{Text: in.Prompt, QueuedID: in.PromptQueuedID, Images: in.PromptImages, Command: in.Command}}})
		s.ContextTokens += EstimateTokens(in.Prompt) + resultTokenExtra
	}
	out = append(out, after...)
	// The meters from the first moment: the limits and the context the first request fills.
	out = append(out, Emit{s.budget()})
	if s.recover != nil {
		// The previous run hit the context limit: make room before the first call.
		s, more := deliverQueued(s)
		s.recovering = true
		s, compacting := compact(s, emergencyKeepTurn, true, 0)
		return s, append(append(out, more...), compacting...), nil
	}
	s, more := nextTurn(s)
	return s, append(out, more...), nil
}

// nextTurn decides what follows a finished round: stop on a bound, compact, or call the model.
func nextTurn(s State) (State, []Effect) {
	if s.stopAfter != "" {
		return stop(s, s.stopAfter, s.stopDetail)
	}
	if r, detail := s.hardStop(); r != "" {
		return stop(s, r, detail)
	}
	if s.Limits.MaxTurns > 0 && s.Turns >= s.Limits.MaxTurns {
		return stop(s, StopMaxTurns, fmt.Sprintf("reached the limit of %d turns", s.Limits.MaxTurns))
	}
	// A tool boundary: every result of the turn is stored, so queued messages go in now.
	s, out := deliverQueued(s)
	if fill := s.contextFill(); fill >= EmergencyCompact {
		s, more := compact(s, emergencyKeepTurn, true, 0)
		return s, append(out, more...)
	} else if s.Limits.ContextWindow > 0 && fill >= s.Limits.compactAt() {
		s, more := compact(s, s.Limits.keepTurns(), false, 0)
		return s, append(out, more...)
	}
	s, more := callModel(s)
	return s, append(out, more...)
}

// callModel starts the next turn. The first call past a soft limit is preceded by the budget
// note, stored as a note row: this and every later request of the session carry it, framed as
// Loopdesk's, and the journal shows when and why the model was asked to finish.
func callModel(s State) (State, []Effect) {
	s.Phase = PhaseStreaming
	s.Turns++
	var out []Effect
	if w := s.softWarnings(); len(w) > 0 && !s.wrappedUp {
		s.wrappedUp = true
		note := BudgetNote(w)
		s.ContextTokens += EstimateTokens(note) + resultTokenExtra
		out = append(out, Persist{[]Row{NoteRow{Source: NoteSourceBudget, Text: note}}})
	}
	return s, append(out, CallModel{Turn: s.Turns})
}

// spend adds one model call's usage to the run and returns it priced, for its row.
func spend(s State, u Usage) (State, RowUsage) {
	s.InputTokens += u.InputTokens
	s.OutputTokens += u.OutputTokens
	s.CacheReadTokens += u.CacheReadTokens
	s.CacheWriteTokens += u.CacheWriteTokens
	cost := s.Limits.Price.Cost(u)
	s.CostUSD += cost
	return s, RowUsage{Usage: u, CostUSD: cost}
}

// compact starts a compaction: a summary of the rows before the latest keep assistant turns,
// or through the end of the step of the row the person chose (chosen > 0). When nothing new
// can be summarised no summary call is made: the run goes on as after a failed compaction.
func compact(s State, keep int, emergency bool, chosen int64) (State, []Effect) {
	s.Phase, s.emergency = PhaseCompacting, emergency
	var ok bool
	if chosen > 0 {
		s.cut, ok = CutAt(s.rowsOf(), chosen)
	} else {
		s.cut, ok = CompactionCut(s.rowsOf(), keep)
	}
	if !ok {
		s.cut = 0
		return onCompacted(s, Compacted{Now: s.Now, Err: NoCut})
	}
	c := Compact{ThroughSeq: s.cut, KeepTurns: keep, Emergency: emergency}
	if s.preCompact {
		return preCompact(s, c)
	}
	return s, []Effect{c}
}

func onCompacted(s State, in Compacted) (State, []Effect) {
	var out []Effect
	var priced RowUsage
	if in.Called {
		s, priced = spend(s, in.Usage)
		if !in.OK {
			out = append(out, Persist{[]Row{UsageRow{Usage: priced, Reason: "the summary call failed"}}})
		}
	}
	if in.OK {
		s.ContextTokens = in.ContextTokens
		out = append(out,
			Persist{[]Row{SummaryRow{Text: in.Summary, ThroughSeq: s.cut, Usage: &priced}}},
			Emit{CompactedPayload{ThroughSeq: s.cut, Summary: in.Summary, ContextTokens: in.ContextTokens,
				Emergency: s.emergency}},
			Emit{s.budget()})
	}
	if s.compactOnly {
		s, more := compactionDone(s, in)
		return s, append(out, more...)
	}
	if s.retrying || s.recovering {
		s, more := afterRoomMade(s, in)
		return s, append(out, more...)
	}
	if s.contextFill() >= EmergencyCompact {
		if s.canSetAside() {
			var more []Effect
			s, more = setAside(s)
			out = append(out, more...)
		} else {
			detail := fmt.Sprintf("context holds about %d of %d tokens and compaction could not shrink it", s.ContextTokens, s.Limits.ContextWindow)
			if in.Err != "" {
				detail += ": " + in.Err
			}
			s, more := stop(s, StopContextExceeded, detail)
			return s, append(out, more...)
		}
	}
	if r, detail := s.hardStop(); r != "" {
		s, more := stop(s, r, detail)
		return s, append(out, more...)
	}
	// Below the emergency line: call the model even if compaction failed or fell short; the
	// next round tries again.
	s, more := callModel(s)
	return s, append(out, more...)
}

// stop ends the run: every call still without a result gets one, then Done.
func stop(s State, reason StopReason, detail string) (State, []Effect) {
	var out []Effect
	content := "cancelled: the run was cancelled before this call finished"
	if reason != StopCancelled {
		content = "cancelled: the run stopped (" + string(reason) + ") before this call finished"
	}
	for i, c := range s.calls {
		if c.Status != callDone {
			var e []Effect
			s, e = answer(s, i, content, true)
			out = append(out, e...)
		}
	}
	s.calls = nil
	s.Phase = PhaseDone
	errText := ""
	if reason != StopCompleted {
		errText = detail
	}
	res := Result{
		Status: reason, Output: s.Output, Counters: s.Counters,
		StartedAt: s.StartedAt, EndedAt: s.Now, Error: errText, SessionID: s.SessionID, RunID: s.RunID,
		Worked: s.worked(),
	}
	s.result = &res
	return s, append(out, Done{Result: res})
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
