package loop

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A prompt is checked before it is sent (Config.Admission: the person's SessionStart and
// UserPromptSubmit hooks, extend.PromptHooks): Start asks before the run exists, Queue before
// a message is queued on a running run. The check decides, records and refuses; the runner
// asks at those moments and stores what the check hands back.

// Admission checks a prompt before it is sent.
type Admission interface {
	// Admit checks the prompt of spec's run before the run exists. It puts what it records
	// and adds for the model in spec.Checked, which the run stores right after its prompt,
	// and returns its refusal, which fails Start; run.Record stores rows with no run then.
	Admit(ctx context.Context, run RunInfo, spec *RunSpec) error
	// AdmitQueued checks text, a message about to be queued on run: it records through
	// run.Record, may end the run with run.Stop, and returns the notes to deliver with the
	// message (store.QueuedMessage.HookContext), or its refusal, which fails Queue.
	AdmitQueued(ctx context.Context, run RunInfo, text string) ([]string, error)
}

// admit has the run's prompt checked before the run exists.
func (rn *run) admit(ctx context.Context) error {
	a := rn.r.cfg.Admission
	if a == nil {
		return nil
	}
	info := rn.info()
	info.Record = func(rows ...store.NewChunk) {
		if err := rn.persist(journal.Recorded(rows)); err != nil {
			rn.r.log.Error("store a refused prompt's hook rows", "session", rn.spec.SessionID, "err", err)
		}
	}
	return a.Admit(ctx, info, &rn.spec)
}

// admitQueued has a message about to be queued on the session's running run checked (a
// run's own prompt is checked by Start): what the check records is stored by the run's owner.
// No run going: nothing to check here (Queue then fails, and Start checks the message as a
// prompt).
func (r *Runner) admitQueued(ctx context.Context, sessionID, text string) ([]string, error) {
	r.mu.Lock()
	rn, runID := r.bySession[sessionID], ""
	if rn != nil {
		runID = rn.id // set under r.mu once the run exists; its workspace is set before
	}
	r.mu.Unlock()
	if r.cfg.Admission == nil || runID == "" {
		return nil, nil
	}
	info := RunInfo{SessionID: sessionID, RunID: runID, Workspace: rn.ws, Mode: rn.spec.Mode.OrDefault(), Plan: rn.spec.Plan,
		Model: rn.spec.Model, Vision: rn.spec.Vision, Child: rn.spec.Child != nil, Stop: rn.requestStop,
		Record: func(rows ...store.NewChunk) {
			if len(rows) == 0 {
				return
			}
			if _, err := r.request(ctx, sessionID, queueRequest{record: rows}); err != nil {
				r.log.Error("store a queued message's hook rows", "session", sessionID, "err", err)
			}
		}}
	return r.cfg.Admission.AdmitQueued(ctx, info, text)
}

// afterPrompt are the rows stored right after the prompt's (Started.AfterPrompt): what the
// prompt's check made, then the spec's Notes.
func (rn *run) afterPrompt() []core.Row {
	rows := journal.Recorded(rn.spec.Checked)
	for _, n := range rn.spec.Notes {
		rows = append(rows, journal.Recorded([]store.NewChunk{{Kind: store.KindNote, Payload: n}})...)
	}
	return rows
}
