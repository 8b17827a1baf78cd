package loop

import (
	"context"
	"sync"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// FireHook effects (backend/hooks, docs/hooks.md): the core fires a completed run's Stop hook
// (SubagentStop for a child session) and a PreCompact hook before a summary call; the runner
// fires them through Config.Hooks, records their runs and feeds their answer back. The hooks
// around tool calls are an extension (extend.Hooks); a prompt's are its check (Admission).

// Hooks fires the person's hooks (*hooks.Engine). Fire runs every hook of the event that
// applies to in.Workspace and returns their combined outcome; it never returns later than
// the longest hook timeout.
type Hooks interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Outcome
}

// hookLister is the optional part of Hooks that says beforehand whether an event has hooks
// (*hooks.Engine). Without it the runner assumes every event may have some.
type hookLister interface {
	Has(ctx context.Context, workspace string, event hooks.Event) bool
}

// stopEvent is the event fired when this run completes: SubagentStop for a child session.
func (rn *run) stopEvent() hooks.Event {
	if rn.spec.parentCallID != "" {
		return hooks.SubagentStop // a child session's run ends: Claude Code's event for a subagent
	}
	return hooks.Stop
}

// hooked says whether event has hooks for the run's folder, for Started (StopHook,
// PreCompactHook): false without a hooks engine.
func (rn *run) hooked(event hooks.Event) bool {
	h := rn.r.cfg.Hooks
	if h == nil {
		return false
	}
	l, ok := h.(hookLister)
	if !ok {
		return true
	}
	ctx, cancel := rn.writeCtx()
	defer cancel()
	return l.Has(ctx, rn.root, event)
}

// stopHook is Started.StopHook: the event fired when the run completes, "" when none is
// configured (whether it fires is the core's to decide).
func (rn *run) stopHook() string {
	if !rn.hooked(rn.stopEvent()) {
		return ""
	}
	return string(rn.stopEvent())
}

// fireHook fires the hooks the core asked for, records their runs and feeds their answer; the
// core decides what it does to the run. A Stop (or Close) while the hooks run kills them with
// the run's work.
func (rn *run) fireHook(e core.FireHook) {
	in := hooks.Input{Event: hooks.Event(e.Event), Active: e.Active, Trigger: e.Trigger, SessionID: rn.spec.SessionID,
		Workspace: rn.root, PermissionMode: hooks.PermissionMode(string(rn.spec.Mode.OrDefault()), rn.spec.Plan)}
	out := rn.r.cfg.Hooks.Fire(rn.ctl.op, in)
	for _, w := range out.Warnings {
		rn.r.log.Warn("hook", "session", rn.spec.SessionID, "event", in.Event, "warning", w)
	}
	rn.record(hookChunks(out.Runs)...)
	rn.send(core.HookAnswered{Now: rn.now(), Stop: out.Stop, StopReason: out.StopReason, Block: out.Decision == hooks.Block, Reason: out.Reason})
}

// hookChunks are the rows of hook runs.
func hookChunks(runs []store.HookPayload) []store.NewChunk {
	out := make([]store.NewChunk, len(runs))
	for i, h := range runs {
		out[i] = store.NewChunk{Kind: store.KindHook, Payload: h}
	}
	return out
}

// stopState is a stop an extension or a check asked for with no answer to carry it: the
// owner feeds it to the core as CancelRequested (cancelInput).
type stopState struct {
	mu     sync.Mutex
	detail string
}

// requestStop ends the run as hook_stopped with detail (RunInfo.Stop, a queued message's
// check): the owner feeds it to the core as CancelRequested. The first stop wins.
func (rn *run) requestStop(detail string) {
	rn.ctl.stop.mu.Lock()
	if rn.ctl.stop.detail == "" {
		rn.ctl.stop.detail = detail
	}
	rn.ctl.stop.mu.Unlock()
	rn.ctl.cancelOnce.Do(func() { close(rn.ctl.cancel) })
}

// writeCtx bounds a read or write made for the run that its work's cancel must not cut, but
// bounded like every write.
func (rn *run) writeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(rn.r.base), rn.r.cfg.PersistTimeout)
}

// cancelInput is the CancelRequested the owner feeds when the run is cancelled: a hook's
// stop when one asked, else the person's.
func (rn *run) cancelInput() core.CancelRequested {
	in := core.CancelRequested{Now: rn.now()}
	rn.ctl.stop.mu.Lock()
	if d := rn.ctl.stop.detail; d != "" {
		in.Reason, in.Detail = core.StopHook, d
	}
	rn.ctl.stop.mu.Unlock()
	if rn.state.Phase == core.PhaseStreaming {
		// The model call is cut now, and its worker hands back what had streamed.
		rn.stopWork()
		in.Partial, rn.ctl.cut = rn.ctl.cut, nil
	}
	return in
}
