package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// taskTools is the run's tool runner with the task tool: a task call starts a child session
// (runTask), any other goes to the tools. Extensions wrap it like any tool runner.
type taskTools struct {
	ToolRunner
	rn *run
}

func (t taskTools) Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result {
	if t.rn.tools.infos[call.Name].Kind != core.ToolTask {
		return t.ToolRunner.Run(ctx, ws, call, out)
	}
	res, spent := t.rn.runTask(call, t.rn.tools.share)
	res.Meta.Child = spent
	return res
}

// runTask carries out one task call on a worker goroutine: it waits for a free slot, creates
// the child session, starts its run and waits for the run to be stored. When the parent's
// work is cancelled (Stop, a bound, Close) it stops the child and still waits for it, so the
// child is never left running without a parent. limits is the child's share of the budgets left (core.Limits.Share, on RunTools.Child).
//
// It returns the call's result and what the child (with its own children) spent.
func (rn *run) runTask(c core.Call, limits core.Limits) (tools.Result, *core.ChildSpend) {
	args, err := parseTaskArgs(c.Arguments)
	if err != nil {
		return tools.Result{Content: err.Error(), IsError: true}, nil
	}
	var agent *agents.Definition
	if args.Agent != "" {
		if agent, err = rn.findAgent(args.Agent); err != nil {
			return tools.Result{Content: err.Error(), IsError: true}, nil
		}
	}
	select {
	case rn.tools.taskSlots <- struct{}{}:
		defer func() { <-rn.tools.taskSlots }()
	case <-rn.ctl.op.Done():
		return tools.Result{Content: "cancelled before the child session started", IsError: true}, nil
	}
	if agent == nil {
		agent = rn.spec.agent // without agent, a child works like its parent: never wider
	}
	child, runID, err := rn.startChild(c, args, agent, limits)
	if err != nil {
		return tools.Result{Content: "the child session could not start: " + err.Error(), IsError: true}, nil
	}
	rn.publish(core.ToolOutputPayload{CallID: c.ID, Text: fmt.Sprintf("started child session %s (run %s)\n", child, runID)})
	stopped := make(chan struct{})
	go func() {
		select {
		case <-rn.ctl.op.Done():
			rn.r.Cancel(child) // Stop on the parent stops its children
		case <-stopped:
		}
	}()
	// Not bounded by op: the child always ends (a cancel ends it within its persist timeout),
	// and its result must be stored before the parent's call is answered.
	res, err := rn.r.Wait(context.WithoutCancel(rn.ctl.op), runID)
	close(stopped)
	if err != nil {
		return tools.Result{Content: fmt.Sprintf("the child session %s: %v", child, err), IsError: true}, nil
	}
	spent := rn.r.nestedSpend(runID).Plus(res.Counters)
	rn.addNested(spent)
	return childResult(child, res), &spent
}

// nestedSpend is what the children of a finished run spent (their own children included).
func (r *Runner) nestedSpend(runID string) core.ChildSpend {
	r.mu.Lock()
	rn := r.byRun[runID]
	r.mu.Unlock()
	if rn == nil {
		return core.ChildSpend{}
	}
	rn.tools.mu.Lock()
	defer rn.tools.mu.Unlock()
	return rn.tools.nested
}

// addNested adds a child's spend to what this run's children spent (for its own parent).
func (rn *run) addNested(s core.ChildSpend) {
	rn.tools.mu.Lock()
	defer rn.tools.mu.Unlock()
	rn.tools.nested = rn.tools.nested.Plus(s)
}

// startChild creates the child session and starts its run under the parent's rules.
// With an agent, the child has the agent's prompt, tools, model and turn bound.
func (rn *run) startChild(c core.Call, args TaskArgs, agent *agents.Definition, limits core.Limits) (string, string, error) {
	ctx, cancel := context.WithTimeout(rn.ctl.op, rn.r.cfg.PersistTimeout)
	defer cancel()
	model, system := rn.spec.Model, rn.spec.SystemPrompt
	limits.Price = rn.spec.Limits.Price
	if agent != nil {
		system = agent.Prompt
		if agent.Model != "" && agent.Model != agents.Inherit {
			model, limits.Price = agent.Model, core.Price{} // priced from the table by the child's model
		}
		limits = limits.CapTurns(agent.MaxTurns)
	}
	s, err := rn.r.cfg.Store.(ChildStore).CreateSession(ctx, store.NewSession{Title: args.Description, Workspace: rn.root,
		Model: model, Provider: rn.spec.Provider, ParentID: rn.spec.SessionID, ParentCallID: c.ID})
	if err != nil {
		return "", "", err
	}
	spec := RunSpec{SessionID: s.ID, Workspace: rn.root, Prompt: args.Prompt, Model: model, SystemPrompt: system, agent: agent,
		Limits: limits, Mode: rn.spec.Mode, MaxTokens: rn.spec.MaxTokens, Sandbox: rn.spec.Sandbox, Plan: rn.spec.Plan,
		Provider: rn.spec.Provider, ThinkingBudget: rn.spec.ThinkingBudget,
		depth: rn.spec.depth + 1, parentCallID: c.ID, parentSession: rn.spec.SessionID, parent: rn}
	runID, err := rn.r.Start(ctx, spec)
	return s.ID, runID, err
}

// childResult is what the parent's model reads: the child's answer when it completed, else
// its status, the reason and whatever it had answered so far.
func childResult(child string, res core.Result) tools.Result {
	if res.Status == core.StopCompleted {
		if strings.TrimSpace(res.Output) == "" {
			return tools.Result{Content: fmt.Sprintf("the child session %s completed without an answer", child)}
		}
		return tools.Result{Content: res.Output}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the child session %s stopped: %s", child, res.Status)
	if res.Error != "" {
		fmt.Fprintf(&b, " (%s)", res.Error)
	}
	if strings.TrimSpace(res.Output) != "" {
		fmt.Fprintf(&b, "\nits answer so far:\n%s", res.Output)
	}
	return tools.Result{Content: b.String(), IsError: true}
}

// relayWaiting tells the parent's core, when this run is a task call's child, that the run
// started or stopped waiting for the person (State.Waiting: its own approvals or its
// children's, so a grandchild's wait reaches every ancestor), so the parent sets that time
// aside like its own. The send is made before the child's end is stored, so the parent hears
// that a child stopped waiting before its task call's result; once the parent stops, its
// work's context drops the news.
func (rn *run) relayWaiting() {
	p := rn.spec.parent
	if p == nil || rn.state.Waiting() == rn.ctl.waiting {
		return
	}
	rn.ctl.waiting = rn.state.Waiting()
	p.send(core.ChildWaiting{Now: rn.now(), CallID: rn.spec.parentCallID, Waiting: rn.ctl.waiting})
}
