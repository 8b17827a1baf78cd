package loop

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Ports are what a run drives: the model, the approver and the tool runner.
type Ports struct {
	Model    Model
	Approver Approver
	Tools    ToolRunner
}

// RunInfo is what an extension knows of the run whose ports it wraps.
type RunInfo struct {
	SessionID string
	RunID     string
	Workspace *tools.Workspace
	// Mode is the run's approval mode; Plan says the run is in plan mode.
	Mode tools.Mode
	Plan bool
	// Model is the run's model, Vision whether it is sent images (RunSpec.Vision).
	Model  string
	Vision images.Vision
	// Rows are the session's rows when the run starts (read-only: the runner's mirror).
	Rows []store.Chunk
	// Child: the run is a child session's (a task call started it).
	Child bool
	// Record stores rows of the run the model is not sent (a hook's runs) through the
	// runner's one writer, in order with the run's other rows. Call it from inside a port
	// call of the run, before returning the answer the rows belong to.
	Record func(rows ...store.NewChunk)
	// Stop ends the run now as hook_stopped with detail as its error: a hook's stop that
	// comes with no answer (a Notification while the run waits for the person).
	Stop func(detail string)
}

// Extension wraps one run's ports, in the shape of connect-go's interceptors (func(next)
// next): it returns ports that do their part around next, keeping what a run needs of them
// for the whole run. Config.Extensions are composed once, in stack.New; the runner applies
// them to each run's ports when the run fixes its tools, the first outermost, and knows
// nothing of what they do. ctx bounds what an extension reads when the run starts.
type Extension func(ctx context.Context, run RunInfo, next Ports) Ports

// ApproverFunc is an Approver made of a function (an extension's wrapper).
type ApproverFunc func(ctx context.Context, req tools.Request) (tools.Decision, error)

// Request implements Approver.
func (f ApproverFunc) Request(ctx context.Context, req tools.Request) (tools.Decision, error) {
	return f(ctx, req)
}

// ModelFunc is a Model made of a function (an extension's wrapper).
type ModelFunc func(ctx context.Context, req provider.Request, h provider.Handler) provider.Response

// Stream implements Model.
func (f ModelFunc) Stream(ctx context.Context, req provider.Request, h provider.Handler) provider.Response {
	return f(ctx, req, h)
}

// record hands rows an extension made to the owner, which stores them (core.Recorded).
func (rn *run) record(rows ...store.NewChunk) {
	if len(rows) == 0 {
		return
	}
	rn.send(core.Recorded{Rows: journal.Recorded(rows)})
}

// info is what an extension or the hook firer knows of the run.
func (rn *run) info() RunInfo {
	return RunInfo{SessionID: rn.spec.SessionID, RunID: rn.id, Workspace: rn.ws, Mode: rn.spec.Mode.OrDefault(), Plan: rn.spec.Plan,
		Model: rn.spec.Model, Vision: rn.spec.Vision, Rows: rn.journal.Rows(), Child: rn.spec.Child != nil,
		Record: rn.record, Stop: rn.requestStop}
}

// wrapPorts is base wrapped by the runner's extensions, for this run.
func (rn *run) wrapPorts(base Ports) Ports {
	info, ext := rn.info(), rn.r.cfg.Extensions
	for i := len(ext) - 1; i >= 0; i-- {
		base = ext[i](rn.ctl.op, info, base)
	}
	return base
}

// Children drives the task tool (task.Driver, wired in stack.New): a call starts a child
// session linked to its parent, runs it on the parent's Runner, waits for it and adds up what
// it spent. Whether a run may start children and each child's budgets are the core's
// (core.MaxTaskDepth, Started.TaskGranted, RunTools.Child); the runner offers the tool and
// hands it each call.
type Children interface {
	// ForRun is the task tool of a run in folder root, fixed for the run.
	ForRun(root string) TaskTool
}

// TaskTool is the task tool of one run.
type TaskTool interface {
	Spec() tools.Spec
	// Run carries out call c of parent's run on its worker and returns the child's answer,
	// with what the child spent (its own children's included) as Meta.Child. It never
	// returns before the child's run is stored; cancelling ctx stops the child.
	Run(ctx context.Context, parent Parent, c core.Call, out func(string)) tools.Result
}

// Parent is the run a task call's child is started from.
type Parent struct {
	Runner *Runner
	Spec   RunSpec
	RunID  string
	Root   string
	// Share is the child's budgets: the core's share of what the parent has left
	// (RunTools.Child).
	Share core.Limits
	// Waiting feeds the parent's core that call callID's child started or stopped waiting
	// for the person (core.ChildWaiting).
	Waiting func(callID string, waiting bool)
}

// ChildOf links a child session's run to the task call that started it (TaskTool sets it).
type ChildOf struct {
	// Depth is how deep the child is (Started.Depth); Session and CallID are the parent's
	// session and the call, which the child's events carry.
	Depth           int
	Session, CallID string
	// Agent is the definition the child runs as (nil: the parent's prompt and tools);
	// TaskGranted: it lists the task tool (Started.TaskGranted).
	Agent       *agents.Definition
	TaskGranted bool
	// Waiting tells the parent's run that this run started or stopped waiting for the person
	// (relayWaiting); nil for a later run of the child's session (startNext), which no call
	// waits for.
	Waiting func(waiting bool)
}
