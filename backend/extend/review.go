package extend

import (
	"context"
	"strings"
	"sync"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Review is approval mode review (tools.ModeReview): a write_file or edit_file call shows its
// hunks on the approval card before anything is written (tools.Request.Proposal); the person
// keeps, drops or edits each (tools.Decision.Hunks) and approves; the call then writes only
// that (its arguments become the reviewed content, and the decision says what was done with
// each hunk, for its approval row), and its result tells the model which hunks were kept,
// dropped or edited, with line ranges. It wraps the approver and the tool runner of a run in
// that mode; other runs pass through.
func Review() loop.Extension {
	return func(_ context.Context, run loop.RunInfo, next loop.Ports) loop.Ports {
		if run.Mode != tools.ModeReview {
			return next
		}
		r := &review{ws: run.Workspace, notes: map[string]string{}}
		approve := next.Approver
		next.Approver = loop.ApproverFunc(func(ctx context.Context, req tools.Request) (tools.Decision, error) {
			req.Proposal = r.propose(req.Call)
			d, err := approve.Request(ctx, req)
			if err != nil {
				return d, err
			}
			return r.apply(req.Call, d), nil
		})
		next.Tools = resultsThen{next.Tools, r.addNote}
		return next
	}
}

// review is one run's reviews: the note of each call the person reviewed, by call id, until
// its result is handed on.
type review struct {
	ws    *tools.Workspace
	mu    sync.Mutex
	notes map[string]string
}

// propose is the hunks of a reviewable call, nil for any other call or one that would fail
// anyway (it then fails as it would have).
func (r *review) propose(c tools.Call) []checkpoint.Proposed {
	if !tools.Reviewable(c.Name) {
		return nil
	}
	_, old, new, err := tools.Proposal(r.ws, c)
	if err != nil {
		return nil
	}
	return checkpoint.Propose(old, new)
}

// apply turns a person's approval of a reviewed call into one that writes only what they
// kept. Dropping every hunk is a denial (nothing to write); choices that do not fit the
// proposal deny too, saying why. A call a rule allowed was not reviewed: it runs as the
// model asked. When every hunk is kept as proposed the call runs with its own arguments:
// only a dropped or edited hunk makes the arguments the reviewed content.
func (r *review) apply(c tools.Call, d tools.Decision) tools.Decision {
	if !d.Approved || !byAPerson(d.By) || !tools.Reviewable(c.Name) {
		return d
	}
	if d.Arguments != "" {
		c.Arguments = d.Arguments // the person's own edit of the arguments, if any
	}
	path, old, new, err := tools.Proposal(r.ws, c)
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
	d.Reviewed = reviewActions(len(checkpoint.Propose(old, new)), d.Hunks)
	r.mu.Lock()
	r.notes[c.ID] = "\n" + note
	r.mu.Unlock()
	return d
}

// byAPerson reports whether by is a person's answer: on the session's card ("person"), in the
// window's inbox ("person:inbox") or in the editor ("person:acp"). Each is a review: hunks
// not named in it are kept, and the model is told so.
func byAPerson(by string) bool {
	return by == tools.ByPerson || strings.HasPrefix(by, tools.ByPerson+":")
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

// addNote adds to a reviewed call's result the note of what the person did with its hunks.
func (r *review) addNote(_ context.Context, call tools.Call, res *tools.Result) {
	r.mu.Lock()
	note := r.notes[call.ID]
	delete(r.notes, call.ID)
	r.mu.Unlock()
	res.Content += note
}
