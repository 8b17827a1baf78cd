package agents

import (
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// ToolInfos is what the loop's core knows of each tool of a run working as agent (nil: the
// run has none), by name: whether it is read-only, the plan tool (store.UpdatePlanTool), the tools only
// the person approves (remember: core.ToolPersonOnly), and
// the tools the agent's definition does not allow, narrowed away (never offered, their calls
// refused): a definition narrows, never widens.
func ToolInfos(specs []tools.Spec, agent *Definition) map[string]core.ToolInfo {
	out := make(map[string]core.ToolInfo, len(specs))
	for _, s := range specs {
		t := core.ToolInfo{Name: s.Name, ReadOnly: s.ReadOnly}
		switch {
		case agent != nil && agent.Tools != nil && !agent.Allows(s.Name):
			t.Kind = core.ToolNarrowed
		case s.Name == store.UpdatePlanTool:
			t.Kind = core.ToolPlan
		case s.Name == tools.RememberTool:
			t.Kind = core.ToolPersonOnly
		}
		out[s.Name] = t
	}
	return out
}
