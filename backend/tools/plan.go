package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/store"
)

// UpdatePlan is the update_plan tool: the model keeps a short plan of its work (steps with
// a status) that the window pins above the message box. The plan is the call's arguments, a
// row like any call; the tool itself changes nothing, so it runs without asking (read-only)
// and in plan mode too.
type UpdatePlan struct{}

var _ Tool = UpdatePlan{}

// Name implements Tool.
func (UpdatePlan) Name() string { return store.UpdatePlanTool }

// Description implements Tool.
func (UpdatePlan) Description() string {
	return "Keep your plan for this task up to date: send the whole plan each time, every step with its status " +
		"(at most one in_progress). The person sees it pinned above the message box and may edit it; their edits " +
		"reach you as a note. Use it for work of several steps; skip it for a single quick answer."
}

// Schema implements Tool.
func (UpdatePlan) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"explanation":{"type":"string","description":"Why the plan changed (optional)"},` +
		`"plan":{"type":"array","items":{"type":"object","properties":{` +
		`"step":{"type":"string","minLength":1},"status":{"type":"string","enum":["pending","in_progress","completed"]}},` +
		`"required":["step","status"],"additionalProperties":false}}},` +
		`"required":["plan"],"additionalProperties":false}`)
}

// ReadOnly implements Tool.
func (UpdatePlan) ReadOnly() bool { return true }

// Execute implements Tool: it checks the plan and says what it holds.
func (UpdatePlan) Execute(_ context.Context, _ *Workspace, raw json.RawMessage, _ func(string)) Result {
	var p store.Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		return Result{Content: "update_plan: " + err.Error(), IsError: true}
	}
	if err := p.Check(); err != nil {
		return Result{Content: "update_plan: " + err.Error(), IsError: true}
	}
	done := 0
	for _, s := range p.Plan {
		if s.Status == store.StepCompleted {
			done++
		}
	}
	return Result{Content: fmt.Sprintf("Plan updated: %d steps, %d completed.", len(p.Plan), done)}
}
