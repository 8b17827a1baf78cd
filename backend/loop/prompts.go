package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// A prompt is checked before it is sent (Config.Admission: the person's SessionStart and
// UserPromptSubmit hooks, extend.PromptHooks): Start asks before the run exists, Queue before
// a message is queued on a running run. What the check recorded is stored either way; what
// it added for the model goes after the prompt, framed as Loopdesk's note, or with the queued
// message until the row that delivers it (store.QueuedMessage.HookContext).

// Admission checks a prompt before it is sent.
type Admission interface {
	Admit(ctx context.Context, p Prompt) Admitted
}

// Prompt is what a check reads.
type Prompt struct {
	SessionID string
	Workspace string
	Mode      tools.Mode
	Plan      bool
	// Text is the prompt, "" for a run that sends none (a resumed run: only the session's
	// start is checked). Checked: it was checked when it was queued ("Send now").
	Text    string
	Checked bool
	// Queued: a message for the session's running run, not a run's own prompt.
	Queued bool
	// Source says how the session began, for its first run in this process: new, fork or
	// resume (read only when asked).
	Source func() string
}

// Admitted is a check's answer.
type Admitted struct {
	// Rows are what the check recorded (hook runs), stored whether or not it refused.
	Rows []store.NewChunk
	// Notes are for the model, after the prompt.
	Notes []string
	// Refused, when set, is why the prompt is not sent (Start or Queue fail with
	// ErrHookBlocked and it); StopRun: a queued message's check also ends the running run.
	Refused string
	StopRun bool
}

// ErrHookBlocked: a hook refused the prompt; nothing was sent or stored but the hook's row.
// The error text carries the hook's reason.
var ErrHookBlocked = errors.New("blocked by a UserPromptSubmit hook")

// admit checks the run's prompt before the run exists. A refusal stores what the check
// recorded (with no run: the run's row is not written) and fails Start.
func (rn *run) admit(ctx context.Context) error {
	a := rn.r.cfg.Admission
	if a == nil {
		return nil
	}
	rn.prompt = a.Admit(ctx, Prompt{SessionID: rn.spec.SessionID, Workspace: rn.root, Mode: rn.spec.Mode.OrDefault(),
		Plan: rn.spec.Plan, Text: rn.spec.Prompt, Checked: rn.spec.PromptQueuedID != "",
		Source: func() string { return rn.sessionSource(ctx) }})
	refused := rn.prompt.Refused
	if refused == "" {
		return nil
	}
	if err := rn.persist(journal.Recorded(rn.prompt.Rows)); err != nil {
		rn.r.log.Error("store a refused prompt's hook rows", "session", rn.spec.SessionID, "err", err)
	}
	rn.prompt = Admitted{}
	return fmt.Errorf("%w: %s", ErrHookBlocked, refused)
}

// admitQueued checks a message about to be queued on the session's running run (a run's own
// prompt is checked by Start): what the check recorded is stored by the run's owner, a
// refusal is ErrHookBlocked (and may end the running run), and the notes are returned to be
// stored with the message. No run going: nothing to check here (Queue then fails, and Start
// checks the message as a prompt).
func (r *Runner) admitQueued(ctx context.Context, sessionID, text string) ([]string, error) {
	r.mu.Lock()
	rn, runID := r.bySession[sessionID], ""
	if rn != nil {
		runID = rn.id // set under r.mu once the run exists; its root is set before
	}
	r.mu.Unlock()
	if r.cfg.Admission == nil || runID == "" {
		return nil, nil
	}
	a := r.cfg.Admission.Admit(ctx, Prompt{SessionID: sessionID, Workspace: rn.root, Mode: rn.spec.Mode.OrDefault(),
		Plan: rn.spec.Plan, Text: text, Queued: true})
	if len(a.Rows) > 0 {
		if _, err := r.request(ctx, sessionID, queueRequest{record: a.Rows}); err != nil {
			r.log.Error("store a queued message's hook rows", "session", sessionID, "err", err)
		}
	}
	if a.Refused == "" {
		return a.Notes, nil
	}
	if a.StopRun {
		rn.requestStop(a.Refused)
	}
	return nil, fmt.Errorf("%w: %s", ErrHookBlocked, a.Refused)
}

// sessionSource is how the session began (store.Session.Source); the rows held start at the
// last compaction, so their last seq says it.
func (rn *run) sessionSource(ctx context.Context) string {
	sess, err := rn.r.cfg.Store.GetSession(ctx, rn.spec.SessionID)
	if err != nil {
		sess = store.Session{} // its lineage unread: a session with rows resumes
	}
	return sess.Source(rn.journal.LastSeq())
}

// afterPrompt are the rows stored right after the prompt's (Started.AfterPrompt): what the
// prompt's check recorded, the notes it gave, then the spec's Notes.
func (rn *run) afterPrompt() []core.Row {
	rows := journal.Recorded(rn.prompt.Rows)
	for _, n := range rn.prompt.Notes {
		rows = append(rows, core.NoteRow{Source: core.NoteSourceHook, Text: n})
	}
	for _, n := range rn.spec.Notes {
		rows = append(rows, journal.Recorded([]store.NewChunk{{Kind: store.KindNote, Payload: n}})...)
	}
	return rows
}
