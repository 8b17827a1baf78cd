package loop

import (
	"encoding/json"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Approval mode review (tools.ModeReview): a write_file or edit_file call
// shows its hunks on the approval card before anything is written; the
// person keeps, drops or edits each (tools.Decision.Hunks) and approves; the
// call then writes only that (its arguments become the reviewed content,
// recorded on the approval row), and its result tells the model which hunks
// were kept, dropped or edited, with line ranges.

// proposal is the JSON of the hunks of a reviewable call in mode review,
// kept on the pending call (PendingView decodes it); nil otherwise,
// or when the call would fail anyway (it then fails as it would have).
func (rn *run) proposal(c Call) json.RawMessage {
	if rn.spec.Mode != tools.ModeReview || !tools.Reviewable(c.Name) {
		return nil
	}
	_, old, new, err := tools.Proposal(rn.ws, c)
	if err != nil {
		return nil
	}
	raw, _ := json.Marshal(checkpoint.Propose(old, new))
	return raw
}

// applyReview turns a person's approval in mode review into one that writes
// only what they kept. Dropping every hunk is a denial (nothing to write);
// choices that do not fit the proposal deny too, saying why. A call a rule
// allowed was not reviewed: it runs as the model asked. When every hunk is
// kept as proposed the call runs with its own arguments: only a dropped or
// edited hunk makes the arguments the reviewed content.
func (rn *run) applyReview(c Call, d tools.Decision) tools.Decision {
	if !d.Approved || d.By != tools.ByPerson || rn.spec.Mode != tools.ModeReview || !tools.Reviewable(c.Name) {
		return d
	}
	if d.Arguments != "" {
		c.Arguments = d.Arguments // the person's own edit of the arguments, if any
	}
	path, old, new, err := tools.Proposal(rn.ws, c)
	if err != nil {
		return d // the tool reports the same problem when it runs
	}
	final, note, err := checkpoint.ApplyChoices(path, old, new, d.Hunks)
	if err != nil {
		return tools.Decision{Approved: false, By: d.By, Reason: err.Error()}
	}
	if final == old {
		return tools.Decision{Approved: false, By: d.By, Reason: "the person reviewed the change to " + path +
			" and dropped every hunk: nothing was written"}
	}
	if final != new {
		d.Arguments = tools.ReviewedArguments(c.Name, path, old, final)
	}
	rn.capMu.Lock()
	if rn.reviews == nil {
		rn.reviews, rn.reviewed = map[string]string{}, map[string][]string{}
	}
	rn.reviews[c.ID] = "\n" + note
	rn.reviewed[c.ID] = reviewActions(len(checkpoint.Propose(old, new)), d.Hunks)
	rn.capMu.Unlock()
	return d
}

// reviewActions is the action taken on each of n hunks, in order (a hunk not named is kept).
func reviewActions(n int, choices []tools.HunkChoice) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(tools.HunkKeep)
	}
	for _, c := range choices {
		if c.Hunk >= 1 && c.Hunk <= n {
			out[c.Hunk-1] = string(c.Action)
		}
	}
	return out
}

// withReview puts the person's hunk choices on the approval row of a reviewed call, so the
// card says it was reviewed rather than edited; other payloads pass unchanged.
func (rn *run) withReview(p any) any {
	a, ok := p.(store.ApprovalPayload)
	if !ok {
		return p
	}
	rn.capMu.Lock()
	defer rn.capMu.Unlock()
	a.Reviewed = rn.reviewed[a.CallID]
	delete(rn.reviewed, a.CallID)
	return a
}

// reviewNote is the review note of call id ("" when it was not reviewed).
func (rn *run) reviewNote(id string) string {
	rn.capMu.Lock()
	defer rn.capMu.Unlock()
	n := rn.reviews[id]
	delete(rn.reviews, id)
	return n
}
