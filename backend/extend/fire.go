package extend

import (
	"context"
	"log/slog"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// FireHooks fires the hooks the core asks for (loop.HookFirer, the runner's FireHook
// effects: a completed run's Stop or SubagentStop, PreCompact before a summary call) with
// the person's hooks engine: it records the hooks' runs through the run and gives the core
// what they said; the core decides what that does to the run.
func FireHooks(engine Engine, log *slog.Logger) loop.HookFirer {
	return hookFirer{newFirer(engine, log)}
}

type hookFirer struct{ firer }

// hookLister is the optional part of an engine that says beforehand whether an event has
// hooks (*hooks.Engine). Without it every event may have some.
type hookLister interface {
	Has(ctx context.Context, workspace string, event hooks.Event) bool
}

// Hooked implements loop.HookFirer: the event fired when the run completes is SubagentStop
// for a child session's run (Claude Code's event for a subagent), else Stop.
func (f hookFirer) Hooked(ctx context.Context, run loop.RunInfo) (string, bool) {
	stop := hooks.Stop
	if run.Child {
		stop = hooks.SubagentStop
	}
	root := run.Workspace.Root()
	if !f.has(ctx, root, stop) {
		stop = ""
	}
	return string(stop), f.has(ctx, root, hooks.PreCompact)
}

func (f hookFirer) has(ctx context.Context, workspace string, event hooks.Event) bool {
	l, ok := f.engine.(hookLister)
	return !ok || l.Has(ctx, workspace, event)
}

func (f hookFirer) Fire(ctx context.Context, run loop.RunInfo, e core.FireHook) core.HookAnswered {
	out, rows := f.fireIn(ctx, hooks.Input{Event: hooks.Event(e.Event), Active: e.Active, Trigger: e.Trigger},
		run.SessionID, run.Workspace.Root(), string(run.Mode), run.Plan)
	run.Record(rows...)
	return core.HookAnswered{Stop: out.Stop, StopReason: out.StopReason, Block: out.Decision == hooks.Block, Reason: out.Reason}
}
