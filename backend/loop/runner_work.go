package loop

import (
	"fmt"
	"sync"

	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Workers: each runs on its own goroutine under rn.op and reports through rn.send.

const wrapupNote = "[loopdesk] A budget for this run is nearly used up. Finish now: give your best " +
	"answer concisely and make no more tool calls unless they are essential."

const summaryPrompt = "[loopdesk] Summarise the conversation so far for your own later use: the task, " +
	"decisions made, facts learned (file names, commands, results), what is done and what remains. " +
	"Be complete but concise; this summary replaces the earlier messages."

func (rn *run) callModel(e CallModel, rows []store.Chunk) {
	// The session's cache: only the rows appended since the last call are decoded, and only
	// the messages that changed are encoded (provider.Cache).
	rc := rn.r.requests.take(rn.spec.SessionID)
	msgs, err := rc.turnsOf(rows)
	if err == nil {
		msgs, err = rn.withImages(rn.op, msgs)
	}
	if err != nil {
		rn.send(Failed{Now: rn.now(), Err: err.Error()})
		return
	}
	if e.Wrapup {
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Text: wrapupNote}) // never stored
	}
	h := provider.Handler{
		OnText:      func(d string) { rn.publish(TextDelta(d)) },
		OnReasoning: func(d string) { rn.publish(ReasoningDelta(d)) },
	}
	resp := rn.spec.client.Stream(rn.op, provider.Request{Model: rn.spec.Model, System: rn.system, Messages: msgs, Tools: rn.toolSpecs(),
		MaxTokens: rn.spec.MaxTokens, ThinkingBudget: rn.spec.ThinkingBudget, Cache: &rc.enc}, h)
	if resp.Err != nil && rn.op.Err() != nil {
		return // cancelled: the core already answered for this turn
	}
	rn.send(ModelResponded{Now: rn.now(), Response: fromProvider(resp, rn.spec.origin)})
}

func (rn *run) toolSpecs() []provider.ToolSpec {
	specs := make([]provider.ToolSpec, len(rn.specs))
	for i, s := range rn.specs {
		specs[i] = provider.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	return specs
}

// fromProvider converts a provider response. Invalid calls without a name or id cannot be
// answered meaningfully and are dropped; the others are stored and answered with an error.
func fromProvider(resp provider.Response, origin Origin) ModelResponse {
	out := ModelResponse{Text: resp.Text, Reasoning: resp.Reasoning, Status: ResponseStatus(resp.Status),
		Usage: usageOf(resp.Usage), Raw: resp.Raw, Origin: origin}
	if resp.Origin.Kind != "" {
		// The client names what answered (its configured name, wire kind and the model).
		out.Origin = Origin{Provider: resp.Origin.Provider, Kind: resp.Origin.Kind, Model: resp.Origin.Model}
		if out.Origin.Provider == "" {
			out.Origin.Provider = origin.Provider
		}
	}
	if resp.Err != nil {
		out.Err = resp.Err.Error()
	}
	if out.Status == "" {
		out.Status = ResponseProviderError
	}
	if provider.ContextExceeded(resp.Err) {
		out.Status = ResponseContextExceeded
	}
	for _, c := range resp.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	for _, c := range resp.InvalidToolCalls {
		if c.ID != "" && c.Name != "" {
			out.InvalidToolCalls = append(out.InvalidToolCalls, Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
	}
	return out
}

// requestApprovals asks about every call at once; the answers come back as they are made.
func (rn *run) requestApprovals(calls []Call) {
	for _, c := range calls {
		rn.goWork(func() {
			if _, known := rn.readOnly[c.Name]; !known {
				// Nothing to approve: the tool runner answers unknown_tool, which the model
				// needs to hear, without a person being asked about a tool that does not exist.
				rn.send(ApprovalDecided{Now: rn.now(), CallID: c.ID, Approved: true, By: "runner:unknown_tool"})
				return
			}
			if rn.spec.Plan && !rn.readOnly[c.Name] {
				// Plan mode is enforced here, in Go, whatever the approval mode or rules say.
				rn.send(ApprovalDecided{Now: rn.now(), CallID: c.ID, Approved: false, By: ByPlanMode, Reason: PlanRefusal})
				return
			}
			call, hook, hookReason := rn.preToolUse(c) // updatedInput and the hooks' decision
			proposal := rn.proposal(call)
			mode := rn.spec.Mode
			if (rn.isTask(c) || c.Name == store.UpdatePlanTool) && mode != tools.ModeDeny {
				// A task call and a plan update change nothing: they run without asking (a
				// rule or a hook can still deny them); the child's own calls ask like any call.
				mode = tools.ModeReadOnly
			}
			d, err := rn.r.cfg.Approver.Request(rn.op, tools.Request{SessionID: rn.spec.SessionID, Workspace: rn.root,
				Mode: mode, Call: call, ReadOnly: rn.readOnly[c.Name], Sandboxed: rn.spec.Sandbox.Sandboxed(call), Proposal: proposal,
				Hook: hook, HookReason: hookReason,
				OnPending: func(p tools.Pending) {
					rn.publish(PendingView(p))
					rn.notifyHooks("Loopdesk needs your permission to use " + c.Name)
				}})
			if err != nil {
				if rn.op.Err() != nil {
					return
				}
				// Fail closed: a policy that cannot be evaluated denies.
				d = tools.Decision{Approved: false, By: "error", Reason: err.Error()}
			}
			d = rn.applyReview(call, d)
			args := ""
			if d.Approved && d.Arguments != c.Arguments {
				args = d.Arguments
			}
			rn.send(ApprovalDecided{Now: rn.now(), CallID: c.ID, Approved: d.Approved, By: d.By, Reason: d.Reason, Arguments: args})
		})
	}
}

// runTools runs consecutive read-only calls in parallel; a call that may change something
// runs alone, after everything before it and before anything after it.
func (rn *run) runTools(calls []Call, limits Limits) {
	for i := 0; i < len(calls); {
		j := i + 1
		if rn.readOnly[calls[i].Name] {
			for j < len(calls) && rn.readOnly[calls[j].Name] {
				j++
			}
		}
		var wg sync.WaitGroup
		for _, c := range calls[i:j] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rn.runTool(c, limits)
			}()
		}
		wg.Wait()
		if rn.op.Err() != nil {
			return
		}
		i = j
	}
}

// runTool runs one call; a task call starts a child session with limits as its budgets.
func (rn *run) runTool(c Call, limits Limits) {
	note := rn.capture(c)
	rn.publish(ToolStartedPayload{CallID: c.ID, Name: c.Name})
	var res tools.Result
	var child *ChildSpend
	if _, offered := rn.readOnly[c.Name]; !offered && rn.spec.agent != nil && rn.spec.agent.Tools != nil {
		// Narrowed away (narrowTools): never run, whatever the model asks.
		res = tools.Result{Content: fmt.Sprintf("unknown tool %q: agent %s does not have it", c.Name, rn.spec.agent.Name), IsError: true}
	} else if rn.isTask(c) {
		res, child = rn.runTask(c, limits)
	} else {
		res = rn.tools.Run(rn.op, rn.ws, c, func(s string) {
			rn.publish(ToolOutputPayload{CallID: c.ID, Text: s})
		})
	}
	if rn.op.Err() != nil {
		return // the core has answered this call "cancelled"
	}
	res = rn.postToolUse(c, res)
	rn.send(ToolFinished{Now: rn.now(), CallID: c.ID, Content: res.Content + note + rn.reviewNote(c.ID), IsError: res.IsError, Sandboxed: res.Meta.Sandboxed, Child: child})
}

// compact summarises the rows up to the cut with one model call (no tools).
func (rn *run) compact(e Compact, chunks []store.Chunk) {
	rn.preCompact()
	fail := func(msg string) { rn.send(Compacted{Now: rn.now(), OK: false, Err: msg}) }
	through, head, tail, err := compactionRows(chunks, e)
	if err != nil {
		fail(err.Error())
		return
	}
	msgs, err := store.Turns(head)
	if err != nil {
		fail(err.Error())
		return
	}
	msgs = append(msgs, provider.Message{Role: provider.RoleUser, Text: summaryPrompt})
	// The same tools as every turn: they are part of the prompt prefix servers cache, and some
	// servers refuse tool messages in a request that offers no tools.
	// And the same thinking budget: Anthropic drops cached message prefixes when it changes.
	resp := rn.spec.client.Stream(rn.op, provider.Request{Model: rn.spec.Model, System: rn.system, Messages: msgs, Tools: rn.toolSpecs(),
		ThinkingBudget: rn.spec.ThinkingBudget}, provider.Handler{})
	if rn.op.Err() != nil {
		return
	}
	usage := usageOf(resp.Usage)
	if resp.Status != provider.StatusOK || resp.Text == "" {
		msg := "the summary call failed"
		if resp.Err != nil {
			msg += ": " + resp.Err.Error()
		}
		rn.send(Compacted{Now: rn.now(), OK: false, Err: msg, Called: true, Usage: usage})
		return
	}
	est, err := EstimateContext(tail, rn.system)
	if err != nil {
		fail(err.Error())
		return
	}
	est += EstimateTokens(resp.Text) + resultTokenExtra
	rn.send(Compacted{Now: rn.now(), OK: true, Summary: resp.Text, ThroughSeq: through, ContextTokens: est, Called: true, Usage: usage})
}

// usageOf converts the provider's usage report (the one conversion between the two types).
func usageOf(u provider.Usage) Usage {
	return Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens,
		Unreported: u.InputTokens == 0 && u.OutputTokens == 0}
}
