package desktop

import "github.com/loopdesk/loopdesk/backend/stack"

// RuleInput is a rule as the "Always allow" dialog edits it (stack.RuleInput: ACP's
// permission options offer the same rule).
type RuleInput = stack.RuleInput
