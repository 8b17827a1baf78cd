package desktop

import (
	"github.com/loopdesk/loopdesk/backend/store"
)

// Plan is the session's latest plan (store.LatestPlan): what the window pins above the
// message box; nil when the session has none. The page asks again when rows arrive that
// set one (an update_plan call, a plan_edit note).
func (s *Sessions) Plan(sessionID string) (*store.PinnedPlan, error) {
	return s.c.db.SessionPlan(s.c.context(), sessionID)
}

// EditPlan records the person's edit of the plan as a note row (store.PlanEditSource): the
// model reads it, framed as Loopdesk's note, at its next request, and the pinned plan is the
// edited one from then on (also after a reopen, a fork or a restart). Refused while the
// session runs (the run is the session's only writer; Stop first) and for an invalid plan.
func (s *Sessions) EditPlan(sessionID string, plan store.Plan) (*store.PinnedPlan, error) {
	c := s.c
	if c.running(sessionID) {
		return nil, errBusy("edit the plan of session " + sessionID)
	}
	note, err := store.PlanEditNote(plan)
	if err != nil {
		return nil, err
	}
	rows, err := c.db.Append(c.context(), sessionID, "", note)
	if err != nil {
		return nil, err
	}
	c.publishRows(sessionID, rows[0].Seq)
	return &store.PinnedPlan{Plan: plan, Seq: rows[0].Seq, By: store.PlanByPerson}, nil
}
