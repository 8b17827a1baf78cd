package loop

import (
	"context"
	"sync"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// FireHook effects (backend/hooks, docs/hooks.md): the core fires a completed run's Stop hook
// (SubagentStop for a child session) and a PreCompact hook before a summary call; the runner
// fires them through Config.Hooks (extend.FireHooks) and feeds their answer back. The hooks
// around tool calls are an extension (extend.Hooks); a prompt's are its check (Admission).

// Hooks fires the person's hooks (*hooks.Engine). Fire runs every hook of the event that
// applies to in.Workspace and returns their combined outcome; it never returns later than
// the longest hook timeout.
type Hooks interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Outcome
}

// HookFirer fires the hooks of a FireHook effect for a run (extend.FireHooks): Has says
// beforehand whether the run's folder has hooks for event (Started.StopHook, PreCompactHook);
// Fire records the hooks' runs through run.Record and gives what they said.
type HookFirer interface {
	Has(ctx context.Context, workspace string, event hooks.Event) bool
	Fire(ctx context.Context, run RunInfo, e core.FireHook) core.HookAnswered
}

// stopEvent is the event fired when this run completes: SubagentStop for a child session.
func (rn *run) stopEvent() hooks.Event {
	if rn.spec.Child != nil {
		return hooks.SubagentStop // a child session's run ends: Claude Code's event for a subagent
	}
	return hooks.Stop
}

// hooked says whether event has hooks for the run's folder, for Started (StopHook,
// PreCompactHook): false without Config.Hooks.
func (rn *run) hooked(event hooks.Event) bool {
	if rn.r.cfg.Hooks == nil {
		return false
	}
	ctx, cancel := rn.writeCtx()
	defer cancel()
	return rn.r.cfg.Hooks.Has(ctx, rn.root, event)
}

// stopHook is Started.StopHook: the event fired when the run completes, "" when none is
// configured (whether it fires is the core's to decide).
func (rn *run) stopHook() string {
	if !rn.hooked(rn.stopEvent()) {
		return ""
	}
	return string(rn.stopEvent())
}

// fireHook fires the hooks the core asked for and feeds their answer; the core decides what
// it does to the run. A Stop (or Close) while the hooks run kills them with the run's work.
func (rn *run) fireHook(e core.FireHook, info RunInfo) {
	answer := rn.r.cfg.Hooks.Fire(rn.ctl.op, info, e)
	answer.Now = rn.now()
	rn.send(answer)
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
