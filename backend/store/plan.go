package store

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The live plan: the model keeps it with the update_plan tool, whose call (the
// plan) and result are rows; the person edits it, which is a note row (Source PlanEditSource)
// telling the model the plan as the person left it. The plan pinned above the message box is
// the latest of the two, read from the rows, so it survives a reopen, a fork and a restart.

// UpdatePlanTool is the name of the tool the model keeps its plan with.
const UpdatePlanTool = "update_plan"

// PlanEditSource is the note Source of a person's edit of the plan.
const PlanEditSource = "plan_edit"

// StepStatus is where a plan step stands.
type StepStatus string

// Plan step statuses.
const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepCompleted  StepStatus = "completed"
)

// PlanStep is one step of a plan.
type PlanStep struct {
	Step   string     `json:"step"`
	Status StepStatus `json:"status"`
}

// Plan is update_plan's arguments, and what the window pins.
type Plan struct {
	Explanation string     `json:"explanation,omitempty"`
	Plan        []PlanStep `json:"plan"`
}

// Check reports what is wrong with a plan: a step without text or with an unknown status.
func (p Plan) Check() error {
	for i, s := range p.Plan {
		if strings.TrimSpace(s.Step) == "" {
			return fmt.Errorf("%w: step %d has no text", ErrInvalid, i+1)
		}
		switch s.Status {
		case StepPending, StepInProgress, StepCompleted:
		default:
			return fmt.Errorf("%w: step %d: status %q (want pending, in_progress or completed)", ErrInvalid, i+1, s.Status)
		}
	}
	return nil
}

// PinnedPlan is the latest plan of a session: Seq is the row it came from, By who wrote it.
type PinnedPlan struct {
	Plan
	Seq int64      `json:"seq"`
	By  PlanAuthor `json:"by"`
}

// PlanAuthor is who wrote a pinned plan: the model (update_plan) or the person (an edit).
type PlanAuthor string

// Plan authors.
const (
	PlanByModel  PlanAuthor = "model"
	PlanByPerson PlanAuthor = "person"
)

const planJSONOpen, planJSONClose = "\n```json\n", "\n```"

// PlanEditNote is the note row of a person's edit: what the model reads, the plan as JSON
// at its end (which LatestPlan reads back).
func PlanEditNote(p Plan) (NewChunk, error) {
	if err := p.Check(); err != nil {
		return NewChunk{}, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return NewChunk{}, err
	}
	text := "The person edited your plan (update_plan). Follow the plan as they left it, and keep it up to date " +
		"with update_plan from here:" + planJSONOpen + string(b) + planJSONClose
	return NewChunk{Kind: KindNote, Payload: NotePayload{Source: PlanEditSource, Text: text}}, nil
}

// LatestPlan finds the session's latest plan in its rows: the last update_plan call that
// succeeded, or the last edit by the person, whichever is later. nil when there is none.
// A call's result is matched to the assistant row that made it, never by call id alone:
// servers that number calls per response (llama.cpp, Ollama, TGI) reuse ids across turns
// and runs, and a later call's failure or denial must not undo an earlier plan.
func LatestPlan(chunks []Chunk) (*PinnedPlan, error) {
	failed := map[callOfRow]bool{}
	var turn int64 // the assistant row whose calls the next results answer
	for _, c := range chunks {
		switch c.Kind {
		case KindAssistant:
			turn = c.Seq
		case KindToolResult:
			var p ToolResultPayload
			if err := json.Unmarshal(c.Payload, &p); err != nil {
				return nil, fmt.Errorf("row %d: %w", c.Seq, err)
			}
			failed[callOfRow{turn, p.CallID}] = p.IsError
		}
	}
	for i := len(chunks) - 1; i >= 0; i-- {
		if p, ok := planOf(chunks[i], failed); ok {
			return p, nil
		}
	}
	return nil, nil
}

// callOfRow names one tool call: the assistant row that made it and its id within that row.
// Append keeps every result after its own assistant row and before the next one.
type callOfRow struct {
	seq int64
	id  string
}

// planOf reads the plan a row sets, if it sets one.
func planOf(c Chunk, failed map[callOfRow]bool) (*PinnedPlan, bool) {
	switch c.Kind {
	case KindAssistant:
		var a AssistantPayload
		if json.Unmarshal(c.Payload, &a) != nil {
			return nil, false
		}
		for j := len(a.ToolCalls) - 1; j >= 0; j-- {
			tc := a.ToolCalls[j]
			var p Plan
			if tc.Name != UpdatePlanTool || failed[callOfRow{c.Seq, tc.ID}] || json.Unmarshal([]byte(tc.Arguments), &p) != nil || p.Check() != nil {
				continue
			}
			return &PinnedPlan{Plan: p, Seq: c.Seq, By: PlanByModel}, true
		}
	case KindNote:
		var n NotePayload
		if json.Unmarshal(c.Payload, &n) != nil || n.Source != PlanEditSource {
			return nil, false
		}
		i := strings.LastIndex(n.Text, planJSONOpen)
		if i < 0 {
			return nil, false
		}
		var p Plan
		body := strings.TrimSuffix(n.Text[i+len(planJSONOpen):], planJSONClose)
		if json.Unmarshal([]byte(body), &p) == nil {
			return &PinnedPlan{Plan: p, Seq: c.Seq, By: PlanByPerson}, true
		}
	}
	return nil, false
}
