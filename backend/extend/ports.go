package extend

import (
	"context"
	"log/slog"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// resultsThen is the tool runner next with then applied to each call's result before it is
// handed on: how an extension changes a result, or learns from it, without running the call.
type resultsThen struct {
	loop.ToolRunner
	then func(ctx context.Context, call tools.Call, res *tools.Result)
}

func (t resultsThen) Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result {
	res := t.ToolRunner.Run(ctx, ws, call, out)
	t.then(ctx, call, &res)
	return res
}

// Engine fires the person's hooks (*hooks.Engine). Fire runs every hook of the event that
// applies to in.Workspace and returns their combined outcome; it never returns later than
// the longest hook timeout.
type Engine interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Outcome
}

// firer fires the person's hooks for the extensions that wrap runs and prompts.
type firer struct {
	engine Engine
	log    *slog.Logger // hooks' warnings (slog.Default when none is given)
}

func newFirer(engine Engine, log *slog.Logger) firer {
	if log == nil {
		log = slog.Default()
	}
	return firer{engine: engine, log: log}
}

// fireIn runs the hooks of in's event in a session (its id, folder, approval mode and plan
// mode filled in), logs their warnings, and gives their outcome with the hook rows of the
// hooks that ran, for the caller to record.
func (f firer) fireIn(ctx context.Context, in hooks.Input, session, folder, mode string, plan bool) (hooks.Outcome, []store.NewChunk) {
	in.SessionID, in.Workspace = session, folder
	in.PermissionMode = hooks.PermissionMode(mode, plan)
	out := f.engine.Fire(ctx, in)
	for _, w := range out.Warnings {
		f.log.Warn("hook", "session", session, "event", in.Event, "warning", w)
	}
	rows := make([]store.NewChunk, len(out.Runs))
	for i, r := range out.Runs {
		rows[i] = store.NewChunk{Kind: store.KindHook, Payload: r}
	}
	return out, rows
}
