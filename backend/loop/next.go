package loop

import (
	"encoding/json"
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
	// The state is a value, but its slices and map are shared with the caller's copy: clone
	// them so a rejected input or a retained old state never sees later changes.
	s.calls = slices.Clone(s.calls)
	s.seen = maps.Clone(s.seen)
	s.queued = slices.Clone(s.queued)

	var (
		out []Effect
		err error
	)
	switch in := in.(type) {
	case Started:
		if s.Phase != PhaseIdle {
			break
		}
		s, out, err = onStarted(s, in)
		return s, out, err
	case ModelResponded:
		if s.Phase != PhaseStreaming {
			break
		}
		s = tick(s, in.Now)
		s, out = onModel(s, in.Response)
		return s, out, nil
	case ApprovalDecided:
		if s.Phase != PhaseApproving {
			break
		}
		s = tick(s, in.Now)
		return onApproval(s, in)
	case ToolFinished:
		if s.Phase != PhaseTools {
			break
		}
		s = tick(s, in.Now)
		return onToolFinished(s, in)
	case Compacted:
		if s.Phase != PhaseCompacting {
			break
		}
		s = tick(s, in.Now)
		s, out = onCompacted(s, in)
		return s, out, nil
	case CancelRequested:
		if s.Phase == PhaseIdle {
			break
		}
		s = tick(s, in.Now)
		reason, detail := StopCancelled, "cancelled by the person"
		if in.Reason != "" {
			reason, detail = in.Reason, in.Detail
		}
		s, out = stop(s, reason, detail)
		return s, out, nil
	case Failed:
		if s.Phase == PhaseIdle {
			break
		}
		s = tick(s, in.Now)
		s, out = stop(s, StopError, in.Err)
		return s, out, nil
	case MessageQueued:
		if s.Phase == PhaseIdle {
			break
		}
		s = tick(s, in.Now)
		return onQueued(s, in)
	case QueueWithdrawn:
		if s.Phase == PhaseIdle {
			break
		}
		s = tick(s, in.Now)
		s, out = onWithdrawn(s, in)
		return s, out, nil
	case Ticked:
		if s.Phase == PhaseIdle {
			break
		}
		s = tick(s, in.Now)
		if r, detail := s.hardStop(); r == StopTimeout {
			s, out = stop(s, r, detail)
		}
		return s, out, nil
	default:
		return s, nil, fmt.Errorf("%T: %w", in, ErrBadInput)
	}
	return s, nil, fmt.Errorf("%T in phase %s: %w", in, s.Phase, ErrUnexpectedInput)
}

// tick moves the clock forward; a driver whose clock steps back never makes time run backwards.
func tick(s State, now time.Time) State {
	if now.After(s.Now) {
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
	s.queued, s.recover = slices.Clone(in.Queued), in.Recover
	out := []Effect{Emit{RunStartedPayload{Prompt: in.Prompt, Model: in.Model, Workspace: in.Workspace, Sandbox: in.Sandbox,
		StartedAt: in.Now, Mode: in.Mode, MCPFailed: in.MCPFailed}}}
	if in.CompactThrough > 0 {
		s.Phase, s.compactOnly = PhaseCompacting, true
		return s, append(out, Compact{ThroughSeq: in.CompactThrough, KeepTurns: s.Limits.keepTurns()}), nil
	}
	if in.Prompt != "" || len(in.PromptImages) > 0 {
		out = append(out, Persist{[]Row{UserRow{Text: in.Prompt, QueuedID: in.PromptQueuedID, Images: in.PromptImages}}})
		s.ContextTokens += EstimateTokens(in.Prompt) + resultTokenExtra
	}
	// The meters from the first moment: the limits and the context the first request fills.
	out = append(out, Emit{s.budget()})
	if s.recover != nil {
		// The previous run hit the context limit: make room before the first call.
		var more []Effect
		s, more = deliverQueued(s)
		s.Phase, s.emergency, s.recovering = PhaseCompacting, true, true
		return s, append(append(out, more...), Compact{KeepTurns: emergencyKeepTurn, Emergency: true}), nil
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
		s.Phase, s.emergency = PhaseCompacting, true
		return s, append(out, Compact{KeepTurns: emergencyKeepTurn, Emergency: true})
	} else if s.Limits.ContextWindow > 0 && fill >= s.Limits.compactAt() {
		s.Phase, s.emergency = PhaseCompacting, false
		return s, append(out, Compact{KeepTurns: s.Limits.keepTurns()})
	}
	s, more := callModel(s)
	return s, append(out, more...)
}

func callModel(s State) (State, []Effect) {
	s.Phase = PhaseStreaming
	s.Turns++
	return s, []Effect{CallModel{Turn: s.Turns, Wrapup: len(s.softWarnings()) > 0}}
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

func onModel(s State, r ModelResponse) (State, []Effect) {
	s, priced := spend(s, r.Usage)
	if r.Usage.InputTokens > 0 {
		s.ContextTokens = r.Usage.InputTokens + r.Usage.OutputTokens
	} else {
		s.ContextTokens += EstimateTokens(r.Text) + EstimateTokens(r.Reasoning)
	}
	s.Output = r.Text
	usage := Emit{UsagePayload{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
		TotalInputTokens: s.InputTokens, TotalOutputTokens: s.OutputTokens, CostUSD: s.CostUSD}}
	if r.Status == ResponseContextExceeded {
		s, more := onTooLong(s, r.Err)
		return s, append([]Effect{Persist{[]Row{UsageRow{Usage: priced, Reason: "the server refused the request for its length"}}}, usage}, more...)
	}

	if r.Status != ResponseOK {
		// A cut-off, refused or failed stream never has its tool calls executed; what text
		// arrived is kept as a plain assistant turn so the person can read it. Either way
		// the call's spend is stored: on that turn, or on a usage row.
		var out []Effect
		if r.Text != "" && r.Status != ResponseProviderError {
			out = append(out, Persist{[]Row{AssistantRow{Text: r.Text, Reasoning: r.Reasoning, Raw: r.Raw, Origin: r.Origin, Usage: priced}}},
				Emit{AssistantMessagePayload{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: []ToolCallView{}}})
		} else {
			out = append(out, Persist{[]Row{UsageRow{Usage: priced, Reason: "model call ended as " + string(r.Status)}}})
		}
		out = append(out, usage, Emit{s.budget()})
		reason := StopReason(r.Status)
		if r.Status != ResponseTruncated && r.Status != ResponseRefused {
			reason = StopProviderError
		}
		detail := r.Err
		if detail == "" {
			detail = "model stream ended as " + string(r.Status)
		}
		s, more := stop(s, reason, detail)
		return s, append(out, more...)
	}

	calls := append(slices.Clone(r.ToolCalls), r.InvalidToolCalls...)
	views := make([]ToolCallView, len(calls))
	for i, c := range calls {
		views[i] = viewCall(c)
	}
	out := []Effect{
		Persist{[]Row{AssistantRow{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: calls, Raw: r.Raw, Origin: r.Origin, Usage: priced}}},
		Emit{AssistantMessagePayload{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: views}},
	}
	for _, v := range views {
		out = append(out, Emit{ToolCallPayload(v)})
	}
	out = append(out, usage)
	if len(calls) == 0 {
		s, more := stop(s, StopCompleted, "")
		return s, append(append(out, Emit{s.budget()}), more...)
	}

	s.calls = make([]callState, len(calls))
	for i, c := range calls {
		s.calls[i] = callState{Call: c, Status: callAwaitingApproval}
	}
	budgetLeft := -1
	if s.Limits.MaxToolCalls > 0 {
		budgetLeft = max(s.Limits.MaxToolCalls-s.ToolCalls, 0)
	}
	s.ToolCalls += len(calls)
	out = append(out, Emit{s.budget()})

	// Tokens, cost and time spent on this very response: its calls are answered, not run.
	if reason, detail := s.hardStop(); reason != "" {
		s, more := stop(s, reason, detail)
		return s, append(out, more...)
	}

	invalid := len(r.ToolCalls)
	var ask []Call
	for i := range s.calls {
		c := s.calls[i].Call
		var msg string
		switch {
		case i >= invalid:
			msg = invalidArguments(c.Arguments)
		case budgetLeft == 0:
			msg = fmt.Sprintf("not executed: the run reached its limit of %d tool calls", s.Limits.MaxToolCalls)
			s.stopAfter, s.stopDetail = StopMaxToolCalls, fmt.Sprintf("reached the limit of %d tool calls", s.Limits.MaxToolCalls)
		default:
			if budgetLeft > 0 {
				budgetLeft--
			}
			sig := signature(c)
			s.seen[sig]++
			switch n := s.seen[sig]; {
			case n >= repeatStopAt:
				msg = "not executed: loop detected, the same call was repeated " + fmt.Sprint(n) + " times"
				s.stopAfter, s.stopDetail = StopLoopDetected, fmt.Sprintf("%s called %d times with identical arguments", c.Name, n)
			case n == repeatWarnAt:
				msg = fmt.Sprintf("loop_detected: %s was already called twice with these exact arguments and "+
					"got the same answer; do not repeat it, change your approach", c.Name)
			}
		}
		if msg != "" {
			var e []Effect
			s, e = answer(s, i, msg, true)
			out = append(out, e...)
			continue
		}
		ask = append(ask, c)
	}
	if s.stopAfter == StopLoopDetected {
		// The run ends now: the calls of this turn that were allowed never run.
		s, more := stop(s, s.stopAfter, s.stopDetail)
		return s, append(out, more...)
	}
	if len(ask) == 0 {
		s, more := nextTurn(s)
		return s, append(out, more...)
	}
	s.Phase = PhaseApproving
	return s, append(out, RequestApproval{Calls: ask})
}

// answer records the one result of call i.
func answer(s State, i int, content string, isError bool) (State, []Effect) {
	return answerRow(s, i, ToolResultRow{Content: content, IsError: isError})
}

// answerRow records row (call id and name filled in) as the one result of call i.
func answerRow(s State, i int, row ToolResultRow) (State, []Effect) {
	c := s.calls[i].Call
	s.calls[i].Status = callDone
	s.ContextTokens += EstimateTokens(row.Content) + resultTokenExtra
	row.CallID, row.Name = c.ID, c.Name
	return s, []Effect{Persist{[]Row{row}}, Emit{ToolFinishedPayload(row)}}
}

func findCall(s State, id string, want callStatus) (int, error) {
	for i, c := range s.calls {
		if c.Call.ID == id {
			if c.Status != want {
				return -1, fmt.Errorf("call %s is not waiting for this: %w", id, ErrUnexpectedInput)
			}
			return i, nil
		}
	}
	return -1, fmt.Errorf("call %q: %w", id, ErrUnknownCall)
}

func onApproval(s State, in ApprovalDecided) (State, []Effect, error) {
	i, err := findCall(s, in.CallID, callAwaitingApproval)
	if err != nil {
		return s, nil, err
	}
	c := s.calls[i].Call
	edited := ""
	if in.Approved && in.Arguments != "" && in.Arguments != c.Arguments {
		edited = in.Arguments
	}
	decision := DecisionDenied
	if in.Approved {
		decision = DecisionApproved
	}
	out := []Effect{
		Persist{[]Row{ApprovalRow{CallID: c.ID, Tool: c.Name, Decision: decision, By: in.By, Reason: in.Reason, Arguments: edited}}},
		Emit{ApprovalDecidedPayload{CallID: c.ID, Name: c.Name, Approved: in.Approved, By: in.By, Reason: in.Reason}},
	}
	if in.Approved {
		s.calls[i].Status = callApproved
		if in.Arguments != "" {
			s.calls[i].Call.Arguments = in.Arguments
		}
	} else {
		msg := "denied by " + orDefault(in.By, "the person")
		if in.Reason != "" {
			msg += ": " + in.Reason
		}
		var e []Effect
		s, e = answer(s, i, msg, true)
		out = append(out, e...)
	}
	if r, detail := s.hardStop(); r == StopTimeout {
		s, more := stop(s, r, detail)
		return s, append(out, more...), nil
	}
	var run []Call
	for _, c := range s.calls {
		switch c.Status {
		case callAwaitingApproval:
			return s, out, nil // more answers to come
		case callApproved:
			run = append(run, c.Call)
		}
	}
	if len(run) == 0 {
		s, more := nextTurn(s)
		return s, append(out, more...), nil
	}
	s.Phase = PhaseTools
	return s, append(out, RunTools{Calls: run}), nil
}

func onToolFinished(s State, in ToolFinished) (State, []Effect, error) {
	i, err := findCall(s, in.CallID, callApproved)
	if err != nil {
		return s, nil, err
	}
	s, out := answerRow(s, i, ToolResultRow{Content: in.Content, IsError: in.IsError, Sandboxed: in.Sandboxed})
	if c := in.Child; c != nil {
		s.InputTokens, s.OutputTokens, s.CostUSD = s.InputTokens+c.InputTokens, s.OutputTokens+c.OutputTokens, s.CostUSD+c.CostUSD
		out = append(out, Emit{s.budget()})
	}
	if r, detail := s.hardStop(); r == StopTimeout {
		s, more := stop(s, r, detail)
		return s, append(out, more...), nil
	}
	if len(s.Outstanding()) > 0 {
		return s, out, nil
	}
	s.calls = nil
	s, more := nextTurn(s)
	return s, append(out, more...), nil
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
			Persist{[]Row{SummaryRow{Text: in.Summary, ThroughSeq: in.ThroughSeq, Usage: &priced}}},
			Emit{CompactedPayload{ThroughSeq: in.ThroughSeq, Summary: in.Summary, ContextTokens: in.ContextTokens,
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
		Status: reason, Output: s.Output, Turns: s.Turns, ToolCalls: s.ToolCalls,
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CacheReadTokens: s.CacheReadTokens,
		CacheWriteTokens: s.CacheWriteTokens, CostUSD: s.CostUSD,
		StartedAt: s.StartedAt, EndedAt: s.Now, Error: errText, SessionID: s.SessionID, RunID: s.RunID,
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

// invalidArguments says what is wrong with arguments that are not a JSON object.
func invalidArguments(raw string) string {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return "invalid_tool_arguments: the arguments are not valid JSON; send the call again with a JSON object"
	}
	return "invalid_tool_arguments: the arguments must be a JSON object, not " + JSONKind(v) + "; send the call again with a JSON object"
}

// JSONKind names the kind of a decoded JSON value ("an array", "a string", ...).
func JSONKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a JSON value"
}
