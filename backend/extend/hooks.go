package extend

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Hooks is the part of the person's hooks (backend/hooks, docs/hooks.md) that wraps a run's
// tool calls. PreToolUse fires as a call is decided: its updatedInput replaces the call's
// arguments (the tool validates them again), its decision and reason go to the approver
// with the rules (tools.Request.Hook, combined there), and its added context waits for the
// call's result. PostToolUse fires once the call ran: a block's reason and the context of
// the call's hooks are added to the result, framed as Loopdesk's note. Notification fires
// when a call waits for the person. Every hook run is recorded as a hook row of the run
// (loop.RunInfo.Record); a hook's "continue": false comes back with the answer it was made
// for (tools.Decision.HookStop, tools.Meta.HookStop) or, for Notification, ends the run at
// once (loop.RunInfo.Stop). The core decides what a stop does.
func Hooks(engine Engine, log *slog.Logger) loop.Extension {
	f := newFirer(engine, log)
	return func(_ context.Context, run loop.RunInfo, next loop.Ports) loop.Ports {
		x := &hookRun{firer: f, run: run, context: map[string][]string{}}
		approve := next.Approver
		next.Approver = loop.ApproverFunc(func(ctx context.Context, req tools.Request) (tools.Decision, error) {
			return x.approve(ctx, req, approve)
		})
		next.Tools = resultsThen{next.Tools, x.postToolUse}
		return next
	}
}

// hookRun is one run's hooks: the context PreToolUse hooks added, by call id, until the
// call's result takes it.
type hookRun struct {
	firer
	run     loop.RunInfo
	mu      sync.Mutex
	context map[string][]string
}

// fire runs the hooks of in's event for the run and records their runs; ran is false when
// none applied.
func (x *hookRun) fire(ctx context.Context, in hooks.Input) (out hooks.Outcome, ran bool) {
	out, rows := x.fireIn(ctx, in, x.run.SessionID, x.run.Workspace.Root(), string(x.run.Mode), x.run.Plan)
	if len(rows) == 0 {
		return out, false
	}
	x.run.Record(rows...)
	return out, true
}

// approve fires PreToolUse, asks the approver about the call as the hooks leave it, and
// fires Notification when the call waits for the person.
func (x *hookRun) approve(ctx context.Context, req tools.Request, next loop.Approver) (tools.Decision, error) {
	c := req.Call
	out, ran := x.fire(ctx, hooks.Input{Event: hooks.PreToolUse, Tool: c.Name, Arguments: c.Arguments, CallID: c.ID})
	if ran {
		if len(out.Context) > 0 {
			x.mu.Lock()
			x.context[c.ID] = append(x.context[c.ID], out.Context...)
			x.mu.Unlock()
		}
		if out.Stop {
			// The run ends: the call is denied without asking anyone.
			stop := core.HookStopText(string(hooks.PreToolUse), out.StopReason)
			return tools.Decision{By: tools.ByHook, Reason: stop, HookStop: stop}, nil
		}
		if out.UpdatedInput != "" && out.Decision != hooks.Deny {
			req.Call.Arguments = out.UpdatedInput
		}
		req.Hook, req.HookReason = tools.Effect(out.Decision), out.Reason
	}
	announce := req.OnPending
	req.OnPending = func(p tools.Pending) {
		if announce != nil {
			announce(p)
		}
		x.notify(ctx, "Loopdesk needs your permission to use "+c.Name)
	}
	return next.Request(ctx, req)
}

// notify fires Notification; nobody waits on it but the call it is about, and a stop ends
// the run (most likely waiting for the person) at once.
func (x *hookRun) notify(ctx context.Context, message string) {
	if out, _ := x.fire(ctx, hooks.Input{Event: hooks.Notification, Message: message}); out.Stop {
		x.run.Stop(core.HookStopText(string(hooks.Notification), out.StopReason))
	}
}

// postToolUse fires PostToolUse after each call ran and adds to its result what the model
// must read with it: a blocking hook's reason, and the context of this call's hooks, framed.
func (x *hookRun) postToolUse(ctx context.Context, call tools.Call, res *tools.Result) {
	if ctx.Err() != nil {
		return // stopped: the core has answered the call
	}
	x.mu.Lock()
	notes := x.context[call.ID]
	delete(x.context, call.ID)
	x.mu.Unlock()
	o, ran := x.fire(ctx, hooks.Input{Event: hooks.PostToolUse, Tool: call.Name, Arguments: call.Arguments, CallID: call.ID,
		Result: &hooks.ToolResponse{Content: res.Content, IsError: res.IsError}})
	if ran {
		if o.Decision == hooks.Block {
			notes = append(notes, "A PostToolUse hook flagged this result: "+o.Reason)
		}
		if o.Stop {
			res.Meta.HookStop = core.HookStopText(string(hooks.PostToolUse), o.StopReason) // the result is kept
		}
		notes = append(notes, o.Context...)
	}
	if len(notes) > 0 {
		res.Content += "\n\n" + store.Frame(strings.Join(notes, "\n"))
	}
}
