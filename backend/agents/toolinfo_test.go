package agents_test

import (
	"reflect"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Without an agent every tool is offered as it is, update_plan as the plan tool; an agent
// listing its tools narrows the others away, the plan tool too when it is not listed.
func TestToolInfosNarrowToTheAgentsTools(t *testing.T) {
	specs := []tools.Spec{{Name: "read_file", ReadOnly: true}, {Name: "run_shell_command"}, {Name: "update_plan"}}
	kinds := func(agent *agents.Definition) map[string]core.ToolKind {
		out := map[string]core.ToolKind{}
		for name, info := range agents.ToolInfos(specs, agent) {
			if info.Name != name || info.ReadOnly != (name == "read_file") {
				t.Errorf("%s: %+v", name, info)
			}
			out[name] = info.Kind
		}
		return out
	}
	if got, want := kinds(nil), map[string]core.ToolKind{"read_file": "", "run_shell_command": "", "update_plan": core.ToolPlan}; !reflect.DeepEqual(got, want) {
		t.Errorf("no agent: %v, want %v", got, want)
	}
	explore := &agents.Definition{Name: "explore", Tools: []string{"read_file"}}
	if got, want := kinds(explore), map[string]core.ToolKind{"read_file": "", "run_shell_command": core.ToolNarrowed, "update_plan": core.ToolNarrowed}; !reflect.DeepEqual(got, want) {
		t.Errorf("explore: %v, want %v", got, want)
	}
	planner := &agents.Definition{Name: "planner", Tools: []string{"update_plan"}}
	if got := kinds(planner)["update_plan"]; got != core.ToolPlan {
		t.Errorf("planner's update_plan: %q, want the plan tool", got)
	}
}
