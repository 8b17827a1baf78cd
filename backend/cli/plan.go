package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// cliPlan is what `loopdesk sessions plan --json` prints: the pinned plan and the row it
// came from. Who wrote it is left out of the contract (docs/cli.md).
type cliPlan struct {
	Explanation string           `json:"explanation"`
	Plan        []store.PlanStep `json:"plan"`
	Seq         int64            `json:"seq"`
}

// planMarks are the human view's step boxes, one per status.
var planMarks = map[store.StepStatus]string{
	store.StepPending:    "[ ]",
	store.StepInProgress: "[>]",
	store.StepCompleted:  "[x]",
}

// plan prints the session's pinned plan (store.LatestPlan), the one the window shows above
// the message box: JSON null, or "no plan", when the session has none (not an error).
func (c *sessCmd) plan(ctx context.Context, db *store.DB, id string) error {
	if _, err := db.GetSession(ctx, id); err != nil {
		return err
	}
	rows, err := db.Chunks(ctx, id)
	if err != nil {
		return err
	}
	p, err := store.LatestPlan(rows)
	if err != nil {
		return fmt.Errorf("read the plan of session %s: %w", id, err)
	}
	if p == nil {
		return c.emit(nil, "no plan in session "+id+"\n")
	}
	var human strings.Builder
	by := map[store.PlanAuthor]string{store.PlanByModel: "the model", store.PlanByPerson: "you"}[p.By]
	fmt.Fprintf(&human, "plan of session %s (row %d, by %s)\n", id, p.Seq, by)
	if p.Explanation != "" {
		fmt.Fprintf(&human, "%s\n", sessClean(p.Explanation))
	}
	for i, s := range p.Plan.Plan {
		fmt.Fprintf(&human, "%s %d. %s\n", planMarks[s.Status], i+1, sessClean(s.Step))
	}
	return c.emit(cliPlan{Explanation: p.Explanation, Plan: p.Plan.Plan, Seq: p.Seq}, human.String())
}
