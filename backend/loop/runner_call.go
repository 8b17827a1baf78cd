package loop

import "github.com/loopdesk/loopdesk/backend/tools"

// Call is the runner's tool call: tools.Call, what approvers, hooks and tools take. The core
// has its own core.Call with the same fields; runner_convert.go converts between the two.
type Call = tools.Call
