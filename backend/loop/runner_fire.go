package loop

import (
	"context"
	"sync"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// FireHook effects (backend/hooks, docs/hooks.md): the core fires a completed run's Stop hook
// (SubagentStop for a child session) and a PreCompact hook before a summary call; the runner
// fires them through Config.Hooks (extend.FireHooks) and feeds their answer back. The hooks
// around tool calls are an extension (extend.Hooks); a prompt's are its check (Admission).

// HookFirer fires the hooks of a FireHook effect for a run (extend.FireHooks): Hooked says
// beforehand which of the events the core fires have hooks for the run's folder (the event
// fired when it completes, "" for none, and whether PreCompact has any: Started.StopHook,
// PreCompactHook); Fire records the hooks' runs through run.Record and gives what they said.
type HookFirer interface {
	Hooked(ctx context.Context, run RunInfo) (stop string, preCompact bool)
	Fire(ctx context.Context, run RunInfo, e core.FireHook) core.HookAnswered
}

// hooked is Started.StopHook and PreCompactHook: none without Config.Hooks. Whether a hook
// fires is the core's to decide.
func (rn *run) hooked() (string, bool) {
	if rn.r.cfg.Hooks == nil {
		return "", false
	}
	ctx, cancel := rn.writeCtx()
	defer cancel()
	return rn.r.cfg.Hooks.Hooked(ctx, rn.info())
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
