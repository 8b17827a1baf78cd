package extend

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/loop"
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
