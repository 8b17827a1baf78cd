package loop

import "github.com/loopdesk/loopdesk/backend/tools"

// Call is tools.Call, the one type for a tool call. The alias lives in a driver file so that
// the core files import nothing beyond the standard library (core_test.go checks them).
type Call = tools.Call
