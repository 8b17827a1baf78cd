package core

import (
	"encoding/json"
	"fmt"
	"slices"
)

// A model turn and its calls: which calls are answered without running, which are decided
// without asking anyone, which are asked about, and which run together.

// Who decided a call the core decided itself (the approval row's "by").
const (
	// ByUnknownTool approves a call of a tool the run does not offer: nothing is asked and
	// the tool runner answers unknown_tool, which the model needs to hear.
	ByUnknownTool = "runner:unknown_tool"
	// ByPlanMode refuses, in plan mode, every call of a tool that is not read-only.
	ByPlanMode = "mode:plan"
)

// PlanRefusal is the reason a call is refused in plan mode; the model reads it as the result.
const PlanRefusal = "the session is in plan mode (planning): only read-only tools run; writing, editing, " +
	"shell commands and tools that may change something are refused. Finish the plan instead; " +
	"the person runs it with Execute plan."

// ModePlan is Started.Mode for a run in plan mode.
const ModePlan = "plan"

// Approval modes the core reads (Started.Approval); the others pass through to the approver.
const (
	ApprovalReadOnly = "read-only"
	ApprovalDeny     = "deny"
)

// narrowedRefusal is the result of a call of a tool the run's agent was not given.
func narrowedRefusal(tool, agent string) string {
	return fmt.Sprintf("unknown tool %q: agent %s does not have it", tool, agent)
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
	paused, retried := s.pauses, s.imagesRetried
	s.pauses, s.imagesRetried = 0, false
	switch r.Status {
	case ResponseImageRefused:
		return onImageRefused(s, r, priced, usage, retried)
	case ResponseOK:
		return onTurn(s, r, priced, usage)
	case ResponsePaused:
		s.pauses = paused + 1
		return onPaused(s, r, priced, usage)
	case ResponseContextExceeded:
		// A turn cut at the context window is dropped with its calls: the retry after the
		// compaction asks for the whole turn again.
		reason := "the server refused the request for its length"
		if r.Text != "" || r.Reasoning != "" || len(r.ToolCalls)+len(r.InvalidToolCalls) > 0 {
			reason = "the answer was cut at the model's context window; its calls were not run"
		}
		s, more := onTooLong(s, r.Err)
		return s, append([]Effect{Persist{[]Row{UsageRow{Usage: priced, Reason: reason}}}, usage}, more...)
	}
	return onBrokenStream(s, r, priced, usage)
}

// maxPauses bounds how many times in a row a turn may be paused and continued.
const maxPauses = 8

// onPaused stores a turn the server paused in the middle (Anthropic's pause_turn, a long
// server-side turn cut into requests) and asks for its continuation: the next request ends
// with this turn, unmodified, so no user row goes between (queued messages wait for the next
// tool boundary) and no wrap-up note is added. The turn's client calls, if the server sent
// any, never run: the turn is not over. Each continuation is a model call, counted as a turn.
func onPaused(s State, r ModelResponse, priced RowUsage, usage Emit) (State, []Effect) {
	out := []Effect{
		Persist{[]Row{AssistantRow{Text: r.Text, Reasoning: r.Reasoning, Raw: r.Raw, Origin: r.Origin, Usage: priced}}},
		Emit{AssistantMessagePayload{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: []ToolCallView{}}},
		usage, Emit{s.budget()},
	}
	reason, detail := s.hardStop()
	switch {
	case reason != "":
	case s.Limits.MaxTurns > 0 && s.Turns >= s.Limits.MaxTurns:
		reason, detail = StopMaxTurns, fmt.Sprintf("reached the limit of %d turns", s.Limits.MaxTurns)
	case s.pauses > maxPauses:
		reason, detail = StopProviderError, fmt.Sprintf("the server paused the turn %d times in a row", s.pauses)
	}
	if reason != "" {
		s, more := stop(s, reason, detail)
		return s, append(out, more...)
	}
	s.Phase = PhaseStreaming
	s.Turns++
	return s, append(out, CallModel{Turn: s.Turns})
}

// brokenCallText says, in words the person reads on the call's usage row, how a model call
// that left no answer ended.
func brokenCallText(status ResponseStatus) string {
	switch status {
	case ResponseProviderError:
		return "The model call failed: the provider answered with an error or the connection broke, and no reply arrived"
	case ResponseRefused:
		return "The provider refused to answer (its content filter)"
	case ResponseTruncated:
		return "The reply was cut off at the model's output limit before any text arrived"
	}
	return "The model call ended without a reply (" + string(status) + ")"
}

// onBrokenStream ends the run after a cut-off, refused or failed stream. Its tool calls are
// never executed; what text arrived is kept as a plain assistant turn so the person can read
// it. Either way the call's spend is stored: on that turn, or on a usage row.
func onBrokenStream(s State, r ModelResponse, priced RowUsage, usage Emit) (State, []Effect) {
	var out []Effect
	if r.Text != "" && r.Status != ResponseProviderError {
		out = append(out, Persist{[]Row{AssistantRow{Text: r.Text, Reasoning: r.Reasoning, Raw: r.Raw, Origin: r.Origin, Usage: priced}}},
			Emit{AssistantMessagePayload{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: []ToolCallView{}}})
	} else {
		out = append(out, Persist{[]Row{UsageRow{Usage: priced, Reason: brokenCallText(r.Status)}}})
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

// onTurn stores a complete turn and takes up its calls: none ends the run as completed.
func onTurn(s State, r ModelResponse, priced RowUsage, usage Emit) (State, []Effect) {
	calls := slices.Clone(r.ToolCalls)
	for _, c := range r.InvalidToolCalls {
		if c.ID != "" && c.Name != "" {
			calls = append(calls, c)
		}
	}
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
		s, more := complete(s)
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
	s, more := screen(s, len(r.ToolCalls), budgetLeft)
	out = append(out, more...)
	if s.stopAfter == StopLoopDetected {
		// The run ends now: the calls of this turn that were allowed never run.
		s, more := stop(s, s.stopAfter, s.stopDetail)
		return s, append(out, more...)
	}
	s, more = route(s)
	return s, append(out, more...)
}

// screen answers, with an error result, the calls of the turn that must not run: the first
// invalid ones (arguments that are not a JSON object), calls past the tool-call budget and
// repeats of the same call. The others stay waiting for a decision.
func screen(s State, invalid, budgetLeft int) (State, []Effect) {
	var out []Effect
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
			s, msg = repeated(s, c)
		}
		if msg != "" {
			var e []Effect
			s, e = answer(s, i, msg, true)
			out = append(out, e...)
		}
	}
	return s, out
}

// repeated counts c among the run's calls and says what to answer instead of running it: a
// warning at the third identical call, loop_detected (ending the run) at the fourth.
func repeated(s State, c Call) (State, string) {
	sig := signature(c)
	s.seen[sig]++
	switch n := s.seen[sig]; {
	case n >= repeatStopAt:
		s.stopAfter, s.stopDetail = StopLoopDetected, fmt.Sprintf("%s called %d times with identical arguments", c.Name, n)
		return s, "not executed: loop detected, the same call was repeated " + fmt.Sprint(n) + " times"
	case n == repeatWarnAt:
		return s, fmt.Sprintf("loop_detected: %s was already called twice with these exact arguments and "+
			"got the same answer; do not repeat it, change your approach", c.Name)
	}
	return s, ""
}

// route decides the calls still waiting without asking anyone where the rules are the core's
// own — a tool the run does not offer is approved (the tool runner answers unknown_tool), a
// tool the run's agent was not given is refused without running, and in plan mode a tool that
// is not read-only is refused — and asks the approver about the rest, the calls that change
// nothing (task, plan) under the read-only mode so they run without asking.
func route(s State) (State, []Effect) {
	var out []Effect
	ask := RequestApproval{}
	for i, c := range s.calls {
		if c.Status != callAwaitingApproval {
			continue
		}
		t, offered := s.tools[c.Call.Name]
		var e []Effect
		switch {
		case !offered:
			s, e = decide(s, i, ApprovalDecided{Now: s.Now, CallID: c.Call.ID, Approved: true, By: ByUnknownTool})
		case t.Kind == ToolNarrowed:
			// Recorded as today's unknown tool is, answered at once: it never reaches a runner.
			s, e = decide(s, i, ApprovalDecided{Now: s.Now, CallID: c.Call.ID, Approved: true, By: ByUnknownTool})
			s, e = answerAfter(s, i, e, narrowedRefusal(c.Call.Name, s.agent))
		case s.plan && !t.ReadOnly:
			s, e = decide(s, i, ApprovalDecided{Now: s.Now, CallID: c.Call.ID, By: ByPlanMode, Reason: PlanRefusal})
		case t.Kind == ToolPersonOnly && s.noPerson && s.approval != ApprovalDeny:
			s, e = decide(s, i, ApprovalDecided{Now: s.Now, CallID: c.Call.ID, By: ByNoPerson, Reason: NoPersonRefusal})
		default:
			ask.Calls = append(ask.Calls, c.Call)
			s.calls[i].askedAt = s.Now
			if mode := callMode(t.Kind); mode != "" && s.approval != ApprovalDeny {
				if ask.Modes == nil {
					ask.Modes = map[string]string{}
				}
				ask.Modes[c.Call.ID] = mode
			}
		}
		out = append(out, e...)
	}
	if len(ask.Calls) > 0 {
		// The meters hold the Time meter still while the person decides.
		s.Phase = PhaseApproving
		return s, append(out, ask, Emit{s.budget()})
	}
	s, more := afterDecisions(s)
	return s, append(out, more...)
}

// callMode is the mode a call of a tool of kind k is asked about under instead of the run's
// ("": the run's): the calls that change nothing run unasked, and only the person approves a
// person-only call.
func callMode(k ToolKind) string {
	switch k {
	case ToolTask, ToolPlan:
		return ApprovalReadOnly
	case ToolPersonOnly:
		return ApprovalPerson
	}
	return ""
}

// answerAfter gives call i its one result after the effects e of its decision.
func answerAfter(s State, i int, e []Effect, content string) (State, []Effect) {
	s, more := answer(s, i, content, true)
	return s, append(e, more...)
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
	s, out := decide(s, i, in)
	if r, detail := s.hardStop(); r == StopTimeout {
		s, more := stop(s, r, detail)
		return s, append(out, more...), nil
	}
	if in.HookStop != "" {
		// The decision is kept; the calls still waiting are answered, none runs.
		s, more := stop(s, StopHook, in.HookStop)
		return s, append(out, more...), nil
	}
	s, more := afterDecisions(s)
	if s.Phase != PhaseApproving && s.Phase != PhaseDone {
		// The person has decided: the Time meter counts again, from the time they took.
		out = append(out, Emit{s.budget()})
	}
	return s, append(out, more...), nil
}

// decide records the decision on call i: its approval row, and for a denial its result.
func decide(s State, i int, in ApprovalDecided) (State, []Effect) {
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
		Persist{[]Row{ApprovalRow{CallID: c.ID, Tool: c.Name, Decision: decision, By: in.By, Reason: in.Reason, Rule: in.Rule,
			Arguments: edited, Reviewed: in.Reviewed, RequestedAt: s.calls[i].askedAt}}},
		Emit{ApprovalDecidedPayload{CallID: c.ID, Name: c.Name, Approved: in.Approved, By: in.By, Reason: in.Reason}},
	}
	if in.Approved {
		s.calls[i].Status = callApproved
		if in.Arguments != "" {
			s.calls[i].Call.Arguments = in.Arguments
		}
		return s, out
	}
	msg := "denied by " + orDefault(in.By, "the person")
	if in.Reason != "" {
		msg += ": " + in.Reason
	}
	if in.Rule != "" { // the model learns that asking again is pointless
		msg += " (from now on: " + in.Rule + ")"
	}
	s, e := answer(s, i, msg, true)
	return s, append(out, e...)
}

// afterDecisions follows the last decision of a turn: run the approved calls, or, when none
// was approved, go on to the next turn. Nothing happens while a decision is still awaited.
func afterDecisions(s State) (State, []Effect) {
	var run []Call
	for _, c := range s.calls {
		switch c.Status {
		case callAwaitingApproval:
			return s, nil // more answers to come
		case callApproved:
			run = append(run, c.Call)
		}
	}
	if len(run) == 0 {
		return nextTurn(s)
	}
	s.Phase = PhaseTools
	return s, []Effect{RunTools{Batches: s.batches(run), Child: s.childShare(run)}}
}

// batches groups approved calls for running: consecutive calls of read-only tools run
// together, in parallel; a call that may change something runs alone, after everything
// before it and before anything after it.
func (s State) batches(calls []Call) [][]Call {
	var out [][]Call
	for i := 0; i < len(calls); {
		j := i + 1
		if s.tools[calls[i].Name].ReadOnly {
			for j < len(calls) && s.tools[calls[j].Name].ReadOnly {
				j++
			}
		}
		out = append(out, calls[i:j:j])
		i = j
	}
	return out
}

// childShare is each child's share of the budgets left when the task calls among calls
// start together; nil when there are none.
func (s State) childShare(calls []Call) *Limits {
	n := 0
	for _, c := range calls {
		if s.tools[c.Name].Kind == ToolTask {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	l := s.Limits.Share(s.Counters, s.worked(), n)
	return &l
}

func onToolFinished(s State, in ToolFinished) (State, []Effect, error) {
	i, err := findCall(s, in.CallID, callApproved)
	if err != nil {
		return s, nil, err
	}
	s, out := answerRow(s, i, ToolResultRow{Content: in.Content, IsError: in.IsError, Sandboxed: in.Sandboxed})
	if c := in.Child; c != nil {
		s.Counters = s.Counters.Plus(*c)
		out = append(out, Emit{s.budget()})
	}
	if r, detail := s.hardStop(); r == StopTimeout {
		s, more := stop(s, r, detail)
		return s, append(out, more...), nil
	}
	if in.HookStop != "" {
		// The result is kept; nothing more of the run starts.
		s, more := stop(s, StopHook, in.HookStop)
		return s, append(out, more...), nil
	}
	if len(s.Outstanding()) > 0 {
		return s, out, nil
	}
	s.calls = nil
	s, more := nextTurn(s)
	return s, append(out, more...), nil
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
