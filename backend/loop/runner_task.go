package loop

import (
	"context"
	"maps"
	"slices"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The task tool (Config.Children, task.Driver): the runner offers it and hands each of its
// calls to the driver, which starts the child session, runs it on this Runner and waits for
// it; a child's run relays its waiting for the person to the parent's core.

// offerTasks adds the run's task tool when the runner has one, unless a tool of that name
// already exists (an MCP server's keeps the name). Whether this run may start children is
// the core's to say (core.MaxTaskDepth, Started.Depth and TaskGranted): keepTools drops the
// tool when not.
func (rn *run) offerTasks() {
	if rn.r.cfg.Children == nil {
		return
	}
	t := rn.r.cfg.Children.ForRun(rn.root)
	spec := t.Spec()
	if _, taken := rn.tools.infos[spec.Name]; taken {
		return
	}
	rn.tools.task = t
	rn.tools.specs = append(rn.tools.specs, spec)
	rn.tools.infos[spec.Name] = core.ToolInfo{Name: spec.Name, ReadOnly: true, Kind: core.ToolTask}
}

// keepTools drops the tools the core does not keep (State.HasTool: the task tool of a run
// that may not start children), so the runner neither offers nor runs them. It runs on the
// owner goroutine right after Started, before any worker reads the tools.
func (rn *run) keepTools() {
	rn.tools.specs = slices.DeleteFunc(rn.tools.specs, func(s tools.Spec) bool { return !rn.state.HasTool(s.Name) })
	maps.DeleteFunc(rn.tools.infos, func(name string, _ core.ToolInfo) bool { return !rn.state.HasTool(name) })
}

// taskTools is the run's tool runner with the task tool: a task call goes to the driver, any
// other to the tools. Extensions wrap it like any tool runner.
type taskTools struct {
	ToolRunner
	rn *run
}

func (t taskTools) Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result {
	rn := t.rn
	if rn.tools.infos[call.Name].Kind != core.ToolTask {
		return t.ToolRunner.Run(ctx, ws, call, out)
	}
	return rn.tools.task.Run(ctx, Parent{Runner: rn.r, Spec: rn.spec, RunID: rn.id, Root: rn.root, Share: rn.tools.share,
		Waiting: func(callID string, waiting bool) {
			rn.send(core.ChildWaiting{Now: rn.now(), CallID: callID, Waiting: waiting})
		}}, call, out)
}

// relayWaiting tells the parent's core, when this run is a task call's child, that the run
// started or stopped waiting for the person (State.Waiting: its own approvals or its
// children's, so a grandchild's wait reaches every ancestor), so the parent sets that time
// aside like its own. The send is made before the child's end is stored, so the parent hears
// that a child stopped waiting before its task call's result; once the parent stops, its
// work's context drops the news.
func (rn *run) relayWaiting() {
	c := rn.spec.Child
	if c == nil || c.Waiting == nil || rn.state.Waiting() == rn.ctl.waiting {
		return
	}
	rn.ctl.waiting = rn.state.Waiting()
	c.Waiting(rn.ctl.waiting)
}

// agent is the definition a child runs as (nil: a session's own run, or the parent's prompt
// and tools).
func (s RunSpec) agent() *agents.Definition {
	if s.Child == nil {
		return nil
	}
	return s.Child.Agent
}

// agentName names the agent the run works as ("" for none).
func (s RunSpec) agentName() string {
	if a := s.agent(); a != nil {
		return a.Name
	}
	return ""
}

// depth is how deep the run's session is among task calls' children (Started.Depth).
func (s RunSpec) depth() int {
	if s.Child == nil {
		return 0
	}
	return s.Child.Depth
}
