package desktop

import (
	"context"
	"fmt"

	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// ChildView is one child session of an open session as its task card shows it, read from
// the journal (the child's session row with parent_call_id, its runs' counters, its pending
// calls) and the runner, so a page opened or reloaded while a child runs, or after, shows the
// same card as one that saw every event. The page keeps it only while no newer event of the
// child (Seq) has been applied.
type ChildView struct {
	SessionID    string `json:"session_id"`
	ParentCallID string `json:"parent_call_id"`
	// Seq is the child's latest event when the read began (as LiveView.Seq).
	Seq uint64 `json:"seq"`
	// Status is "running" while its run goes on, else the last run's status ("" before any).
	Status store.RunStatus `json:"status"`
	// Step is what it is doing, in the words of the live card ("running read_file").
	Step string `json:"step"`
	// ToolCalls, Tokens and Cost are what it used over its runs, its own children included.
	ToolCalls int                                 `json:"tool_calls"`
	Tokens    int64                               `json:"tokens"`
	Cost      float64                             `json:"cost"`
	Pending   []loopcore.ApprovalRequestedPayload `json:"pending"`
}

// Children lists the child sessions the task calls of session id started, oldest first.
func (s *Sessions) Children(id string) ([]ChildView, error) {
	ctx := s.c.context()
	kids, err := s.c.db.Children(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]ChildView, 0, len(kids))
	for _, k := range kids {
		v, err := s.c.childView(ctx, k.ID, k.ParentCallID)
		if err != nil {
			return nil, fmt.Errorf("child %s of session %s: %w", k.ID, id, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// childView reads one child. As in Live, the sequence and the run are read first: what
// follows is at least as new as them.
func (c *core) childView(ctx context.Context, id, callID string) (ChildView, error) {
	v := ChildView{SessionID: id, ParentCallID: callID, Seq: c.st.Runner.Bus().Seq(id)}
	_, running := c.st.Runner.Running(id)
	v.Pending = c.pending(id)
	t, _, err := c.db.FamilyTotals(ctx, id)
	if err != nil {
		return ChildView{}, err
	}
	v.ToolCalls, v.Tokens, v.Cost = t.ToolCalls, t.InputTokens+t.OutputTokens, t.Cost
	if !running {
		runs, err := c.db.ListRuns(ctx, id)
		if err != nil {
			return ChildView{}, err
		}
		if len(runs) > 0 {
			v.Status = runs[len(runs)-1].Status
		}
		v.Step = string(v.Status)
		return v, nil
	}
	v.Status, v.Step = store.RunRunning, "thinking"
	calls, err := c.db.PendingCalls(ctx, id)
	if err != nil {
		return ChildView{}, err
	}
	switch {
	case len(v.Pending) > 0:
		v.Step = "waiting for your approval of " + v.Pending[0].Name
	case len(calls) > 0:
		v.Step = "running " + calls[0].Name
	}
	return v, nil
}

// runChildren sums what the children started by the run's task calls used (theirs
// included): the children hanging under that run's rows.
func (c *core) runChildren(ctx context.Context, id, runID string) (store.Totals, error) {
	var sum store.Totals
	kids, err := c.db.RunChildren(ctx, id, runID)
	if err != nil {
		return sum, err
	}
	for _, k := range kids {
		t, _, err := c.db.FamilyTotals(ctx, k.ID)
		if err != nil {
			return sum, err
		}
		sum.Turns, sum.ToolCalls, sum.Cost = sum.Turns+t.Turns, sum.ToolCalls+t.ToolCalls, sum.Cost+t.Cost
		sum.InputTokens, sum.OutputTokens = sum.InputTokens+t.InputTokens, sum.OutputTokens+t.OutputTokens
	}
	return sum, nil
}
