package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/loop"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Chat is the bound service for sending messages, stopping runs and answering approvals.
type Chat struct{ c *core }

// SendMessage starts a run of the session with text as the prompt, using the saved model,
// limits, and the session's mode (plan or execute, and its approval mode). While a run is
// going, the message is queued instead: it reaches the model at the run's next tool boundary
// (queue_changed reports it), or starts the next run. It returns the run's id; everything
// else, the stored user row included, arrives as events.
func (h *Chat) SendMessage(sessionID, text string) (string, error) {
	if err := h.c.roomToRun(); err != nil {
		return "", fmt.Errorf("send a message to session %s: %w", sessionID, err)
	}
	runID, err := h.c.chat.Send(h.c.context(), sessionID, text, chat.Run{})
	if errors.Is(err, loop.ErrBusy) {
		return "", errBusy("send a message to session " + sessionID)
	}
	return runID, err
}

// start starts a run of the session through the use-case layer; edit fills in what the run
// is for.
func (c *core) start(sessionID string, edit func(*loop.RunSpec)) (string, error) {
	if err := c.roomToRun(); err != nil {
		return "", fmt.Errorf("start a run of session %s: %w", sessionID, err)
	}
	return c.chat.Start(c.context(), sessionID, chat.Run{Edit: edit})
}

// DiskRoom is the space left on the disk holding the database, and what to tell the person:
// under 100 MB a warning before a run starts, under 1 MB why sending is refused.
func (h *Chat) DiskRoom() (store.Room, error) { return h.c.st.DB.Room() }

// roomToRun refuses a run on a full disk, before anything is written: the window stays
// usable for reading, and the person learns why sending is refused (a StorageError).
func (c *core) roomToRun() error {
	r, err := c.st.DB.Room()
	if err != nil {
		return nil // a disk that cannot say how full it is: the run reports it if it fills
	}
	return r.Refusal()
}

// runSpec is a run of the session as the window's saved settings make it (chat.Config.Spec):
// the session's provider and model are checked here and set as the run starts (respec).
func (c *core) runSpec(ctx context.Context, s store.Session) (loop.RunSpec, error) {
	r, _, err := c.settings.Effective(ctx) // a saved value that cannot be used refuses the run
	if err != nil {
		return loop.RunSpec{}, err
	}
	if _, err := c.runChoice(s, r); err != nil {
		return loop.RunSpec{}, err // before a scratch folder is made for a run that cannot start
	}
	if s.Workspace == "" {
		// A session whose person chose no folder works in an empty scratch folder of its
		// own, so its file tools still have a confined root.
		if s, err = c.scratchWorkspace(s); err != nil {
			return loop.RunSpec{}, err
		}
		// The Workspace tab shows this folder from now on: watch it like a chosen one.
		_ = c.watches.Show(ctx, s.Workspace) // the tree reports a folder it cannot watch
	}
	sb, err := c.sandboxView(ctx, s)
	if err != nil {
		return loop.RunSpec{}, err
	}
	spec := r.RunSpec(s.ID, s.Workspace, "", "") // the provider and model: respec, as the run starts
	spec.Sandbox = c.shellSandbox(sb.Effective)
	return spec, nil
}

// Cancel stops the session's run, if one is going.
func (h *Chat) Cancel(sessionID string) { h.c.st.Runner.Cancel(sessionID) }

// PendingApprovals lists the session's calls waiting for the person.
func (h *Chat) PendingApprovals(sessionID string) []loopcore.ApprovalRequestedPayload {
	return h.c.pending(sessionID)
}

// pending lists the session's waiting calls in the shape approval_requested carries them.
func (c *core) pending(sessionID string) []loopcore.ApprovalRequestedPayload {
	ps := c.st.Approver.Pending(sessionID)
	out := make([]loopcore.ApprovalRequestedPayload, len(ps))
	for i, p := range ps {
		out[i] = p.View()
	}
	return out
}

func (c *core) pendingCall(sessionID, callID string) (tools.Pending, bool) {
	for _, p := range c.st.Approver.Pending(sessionID) {
		if p.Call.ID == callID {
			return p, true
		}
	}
	return tools.Pending{}, false
}

// DecisionInput is the person's answer to one pending call.
type DecisionInput struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason"`
	// Arguments, when not empty, replace the call's arguments: the edited call is what runs
	// and what is recorded. They are validated again before running.
	Arguments string `json:"arguments"`
	// Always, when set, is saved as a rule once this answer has been accepted: an allow rule
	// with an approval ("Always allow"), a deny rule with a denial ("Always deny").
	Always *RuleInput `json:"always"`
	// Hunks (approval mode review): the person's choice for each proposed hunk of a
	// write_file or edit_file call; a hunk not named is kept.
	Hunks []tools.HunkChoice `json:"hunks,omitempty"`
}

// Decide answers a pending call. It is refused unless that exact call of that session is
// waiting; the first answer wins. An "always allow" rule is saved only when this answer won.
func (h *Chat) Decide(sessionID, callID string, in DecisionInput) error {
	c := h.c
	p, ok := c.pendingCall(sessionID, callID)
	if !ok {
		return fmt.Errorf("decide call %s: %w", callID, tools.ErrNotPending)
	}
	d := tools.Decision{Approved: in.Approved, By: tools.ByPerson, Reason: strings.TrimSpace(in.Reason), Arguments: p.Call.Arguments,
		Hunks: in.Hunks}
	if args := strings.TrimSpace(in.Arguments); args != "" && in.Approved {
		if err := checkArguments(args); err != nil {
			return err
		}
		d.Arguments = args
	} else if in.Approved {
		if err := checkChoices(p, in.Hunks); err != nil {
			return err
		}
	}
	var rule *store.NewRule
	if in.Always != nil {
		r, err := c.ruleFor(*in.Always, sessionID, p.Call.Name, in.Approved)
		if err != nil {
			return err
		}
		rule = &r
	}
	answer, err := c.st.Approver.Claim(sessionID, callID)
	if err != nil {
		return err
	}
	// This answer has won: the rule is saved before the call runs, so the next call sees it.
	var ruleErr error
	if rule != nil {
		saved, err := c.db.AddRule(c.context(), *rule)
		switch {
		case err != nil:
			ruleErr = fmt.Errorf("the call was approved, but the rule was not saved: %w", err)
		default:
			d.Rule = saved.Text()
		}
	}
	answer(d)
	return ruleErr
}

// checkChoices refuses an approval of a call under review (approval mode review) that does
// not say what to do with each of its hunks: the card always sends the person's choices, so
// an approval without them would write hunks the person may have dropped. An approval with
// edited arguments carries no choices: the edit is what the person chose.
func checkChoices(p tools.Pending, choices []tools.HunkChoice) error {
	hunks := p.Proposal
	if len(hunks) == 0 {
		return nil
	}
	chosen := map[int]bool{}
	for _, c := range choices {
		chosen[c.Hunk] = true
	}
	for _, h := range hunks {
		if !chosen[h.Hunk] {
			return fmt.Errorf("%w: call %s is under review: say keep, drop or edit for each of its %d hunks (hunk %d has no choice)",
				ErrInvalidInput, p.Call.ID, len(hunks), h.Hunk)
		}
	}
	return nil
}

// checkArguments says what is wrong with edited arguments: they must be a JSON object.
func checkArguments(args string) error {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return fmt.Errorf("%w: the edited arguments are not valid JSON: %v", ErrInvalidInput, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("%w: the edited arguments must be a JSON object, not %s", ErrInvalidInput, loopcore.JSONKind(v))
	}
	return nil
}

// SuggestRule is the rule "Always allow" (or, with the effect changed, "Always deny") would
// save for a pending call.
func (h *Chat) SuggestRule(sessionID, callID string) (RuleInput, error) {
	if p, ok := h.c.pendingCall(sessionID, callID); ok {
		return stack.SuggestRule(sessionID, p.Call), nil
	}
	return RuleInput{}, fmt.Errorf("suggest a rule for call %s: %w", callID, tools.ErrNotPending)
}
