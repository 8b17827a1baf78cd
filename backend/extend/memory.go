package extend

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Memory keeps what a run's remember calls ask for (tools.Remember): a call the person
// approved (the core asks only them) runs through the registry, which validates its
// arguments, and the memory it names (tools.Meta.Memory) is saved linked to the row that made
// the call. A nil keeper leaves the tools as they are (the call then says the run cannot keep
// memories).
func Memory(keeper tools.MemoryKeeper) loop.Extension {
	return func(_ context.Context, run loop.RunInfo, next loop.Ports) loop.Ports {
		if keeper == nil {
			return next
		}
		next.Tools = resultsThen{ToolRunner: next.Tools, then: func(ctx context.Context, call tools.Call, res *tools.Result) {
			if call.Name == tools.RememberTool && res.Meta.Memory != nil {
				*res = tools.SaveMemory(ctx, keeper, run.SessionID, run.RunID, call, *res.Meta.Memory)
			}
		}}
		return next
	}
}
