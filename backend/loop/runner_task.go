package loop

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The task tool (backend/task): a call starts a child session, run by the same Runner beside
// its parent's run. The call's worker waits for the child's run to be stored; when the
// parent's work is cancelled (Stop, a bound, Close) it stops the child and still waits for
// it, so the child is never left running without a parent.

// offerTasks adds the task tool to the run's tools when the runner has it turned on and the
// store can hold children. Whether this run may start children is the core's to say
// (core.MaxTaskDepth, Started.Depth and TaskGranted): keepTools drops the tool when not.
func (rn *run) offerTasks() {
	cfg := rn.r.cfg.Tasks
	if _, ok := rn.r.cfg.Store.(task.Store); !ok || cfg == nil {
		return
	}
	if _, taken := rn.tools.infos[task.Tool]; taken {
		return // a tool of that name already exists (an MCP server's): it keeps the name
	}
	rn.tools.taskSlots = make(chan struct{}, cfg.Slots())
	if cfg.Agents != nil {
		rn.tools.agents = cfg.Agents(rn.root)
	}
	rn.tools.specs = append(rn.tools.specs, task.Spec(rn.tools.agents))
	rn.tools.infos[task.Tool] = core.ToolInfo{Name: task.Tool, ReadOnly: true, Kind: core.ToolTask}
}

// taskGranted says whether the run's agent lists the task tool (Started.TaskGranted).
func (s RunSpec) taskGranted() bool {
	return s.agent != nil && s.agent.Tools != nil && s.agent.Allows(task.Tool)
}

// keepTools drops the tools the core does not keep (State.HasTool: the task tool of a run
// that may not start children), so the runner neither offers nor runs them. It runs on the
// owner goroutine right after Started, before any worker reads the tools.
func (rn *run) keepTools() {
	rn.tools.specs = slices.DeleteFunc(rn.tools.specs, func(s tools.Spec) bool { return !rn.state.HasTool(s.Name) })
	maps.DeleteFunc(rn.tools.infos, func(name string, _ core.ToolInfo) bool { return !rn.state.HasTool(name) })
}

// agentName names the agent the run works as ("" for none).
func (s RunSpec) agentName() string {
	if s.agent == nil {
		return ""
	}
	return s.agent.Name
}

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
// the child session, starts its run and waits for the run to be stored. limits is the
// child's share of the budgets left (core.Limits.Share, on RunTools.Child). It returns the
// call's result and what the child (with its own children) spent.
func (rn *run) runTask(c core.Call, limits core.Limits) (tools.Result, *core.ChildSpend) {
	fail := func(msg string) (tools.Result, *core.ChildSpend) {
		return tools.Result{Content: msg, IsError: true}, nil
	}
	args, err := task.ParseArgs(c.Arguments)
	if err != nil {
		return fail(err.Error())
	}
	agent := rn.spec.agent // without agent, a child works like its parent: never wider
	if args.Agent != "" {
		if agent, err = task.Find(rn.tools.agents, args.Agent); err != nil {
			return fail(err.Error())
		}
	}
	select {
	case rn.tools.taskSlots <- struct{}{}:
		defer func() { <-rn.tools.taskSlots }()
	case <-rn.ctl.op.Done():
		return fail("cancelled before the child session started")
	}
	child, runID, err := rn.startChild(c, args, agent, limits)
	if err != nil {
		return fail("the child session could not start: " + err.Error())
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
		return fail(fmt.Sprintf("the child session %s: %v", child, err))
	}
	spent := rn.r.nestedSpend(runID).Plus(res.Counters)
	rn.addNested(spent)
	return task.Result(child, res), &spent
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
func (rn *run) startChild(c core.Call, args task.Args, agent *agents.Definition, limits core.Limits) (string, string, error) {
	ctx, cancel := context.WithTimeout(rn.ctl.op, rn.r.cfg.PersistTimeout)
	defer cancel()
	limits.Price = rn.spec.Limits.Price
	ch := task.Child{Model: rn.spec.Model, System: rn.spec.SystemPrompt, Limits: limits}.As(agent)
	s, err := rn.r.cfg.Store.(task.Store).CreateSession(ctx, store.NewSession{Title: args.Description, Workspace: rn.root,
		Model: ch.Model, Provider: rn.spec.Provider, ParentID: rn.spec.SessionID, ParentCallID: c.ID})
	if err != nil {
		return "", "", err
	}
	spec := RunSpec{SessionID: s.ID, Workspace: rn.root, Prompt: args.Prompt, Model: ch.Model, SystemPrompt: ch.System, agent: agent,
		Limits: ch.Limits, Mode: rn.spec.Mode, MaxTokens: rn.spec.MaxTokens, Sandbox: rn.spec.Sandbox, Plan: rn.spec.Plan,
		Provider: rn.spec.Provider, ThinkingBudget: rn.spec.ThinkingBudget,
		depth: rn.spec.depth + 1, parentCallID: c.ID, parentSession: rn.spec.SessionID, parent: rn}
	runID, err := rn.r.Start(ctx, spec)
	return s.ID, runID, err
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
