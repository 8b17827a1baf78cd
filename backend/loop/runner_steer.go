package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The runner's part of steering: the run's system prompt (AGENTS.md, plan mode), the
// recovery after a context_exceeded stop, and the queue of messages sent mid-run (what a
// person does with a stored queue, and the compaction they ask for, are backend/chat's).

// Skills lists the skills of a folder for the system prompt (agents.Catalog): "" when it
// has none.
type Skills interface {
	Prompt(folder string) string
}

// steer builds the run's system prompt (instructions.System) from the instruction files and
// the folder's skills, both read afresh.
func (rn *run) steer(ctx context.Context) error {
	files, err := instructions.Load(rn.r.cfg.InstructionsDir, rn.root)
	if err != nil {
		return err
	}
	skills := ""
	if rn.r.cfg.Skills != nil {
		skills = rn.r.cfg.Skills.Prompt(rn.root)
	}
	rn.guide.files, rn.guide.system = files, instructions.System(rn.spec.SystemPrompt, files, rn.spec.Plan, skills)
	return ctx.Err()
}

// previousStop is how the session's last run ended ("" for a new session): after
// context_exceeded the core recovers (Started.PreviousStop).
func (rn *run) previousStop(ctx context.Context) (core.StopReason, error) {
	last, ok, err := rn.r.cfg.Store.LastRun(ctx, rn.spec.SessionID)
	if err != nil || !ok {
		return "", err
	}
	return core.StopReason(last.Status), nil
}

// queueRequest is a change to a running run's queue, answered on reply.
type queueRequest struct {
	record      []store.NewChunk // what a queued message's check recorded, stored by the owner
	add         *core.QueuedMessage
	hookContext []string // what add's UserPromptSubmit hooks added, stored with it
	withdraw    string
	reply       chan queueReply
}

type queueReply struct {
	ok  bool
	err error
}

// Queue adds a message to the session's running run, to be delivered at its next tool
// boundary. It fails with ErrNotRunning when no run is going (start one with the message).
// The message passes the UserPromptSubmit hooks first, like a typed one: a blocking hook
// fails Queue (extend.ErrHookBlocked; nothing is queued); the context they add is stored with the
// message and delivered with it, also after a restart. The hooks never run again for it.
func (r *Runner) Queue(ctx context.Context, sessionID, text string) (core.QueuedMessage, error) {
	if text == "" {
		return core.QueuedMessage{}, fmt.Errorf("queue a message on session %s: %w", sessionID, ErrNoPrompt)
	}
	m := core.QueuedMessage{ID: store.NewQueueID(), Text: text, QueuedAt: r.cfg.Now()}
	hookContext, err := r.admitQueued(ctx, sessionID, text)
	if err != nil {
		return core.QueuedMessage{}, err // the hook's reason, for the person as it stands
	}
	if ok, err := r.request(ctx, sessionID, queueRequest{add: &m, hookContext: hookContext}); err != nil || !ok {
		if err == nil {
			err = ErrNotRunning
		}
		return core.QueuedMessage{}, fmt.Errorf("queue a message on session %s: %w", sessionID, err)
	}
	return m, nil
}

// Withdraw removes a queued message that was not delivered yet. It reports false when the
// message is no longer queued (delivered, or the run ended).
func (r *Runner) Withdraw(ctx context.Context, sessionID, id string) (bool, error) {
	ok, err := r.request(ctx, sessionID, queueRequest{withdraw: id})
	if err != nil && err != ErrNotRunning {
		return false, fmt.Errorf("withdraw message %s: %w", id, err)
	}
	return ok, nil
}

// storedQueue reads the session's durable queue, without the message skip.
func (r *Runner) storedQueue(ctx context.Context, sessionID, skip string) ([]core.QueuedMessage, error) {
	stored, err := r.cfg.Store.Queued(ctx, sessionID)
	return store.CoreQueue(stored, skip), err
}

func (r *Runner) request(ctx context.Context, sessionID string, req queueRequest) (bool, error) {
	r.mu.Lock()
	rn := r.bySession[sessionID]
	r.mu.Unlock()
	if rn == nil {
		return false, ErrNotRunning
	}
	req.reply = make(chan queueReply, 1)
	select {
	case rn.ctl.requests <- req:
	case <-rn.ctl.loopDone:
		return false, ErrNotRunning
	case <-ctx.Done():
		return false, ctx.Err()
	}
	rep := <-req.reply // the owner answers every request it takes
	return rep.ok, rep.err
}

// handleQueue applies a queue request on the owner goroutine. A message is stored before the
// core hears of it, so a crash after the person saw it queued cannot lose it; a run already
// done (Done returned) refuses it, and the caller starts the next run with it instead.
func (rn *run) handleQueue(req queueRequest) []core.Effect {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(rn.r.base), rn.r.cfg.PersistTimeout)
	defer cancel()
	if len(req.record) > 0 {
		if err := rn.persist(journal.Recorded(req.record)); err != nil {
			rn.r.log.Error("store a queued message's hook rows", "session", rn.spec.SessionID, "err", err)
		}
		req.reply <- queueReply{ok: true}
		return nil
	}
	if req.add != nil {
		if rn.state.Phase == core.PhaseDone {
			req.reply <- queueReply{}
			return nil
		}
		m := *req.add
		stored := store.QueuedOf(m)
		stored.HookContext = req.hookContext // in the message's transaction: durable with it
		if err := rn.r.cfg.Store.Enqueue(ctx, rn.spec.SessionID, stored); err != nil {
			req.reply <- queueReply{err: err}
			return nil
		}
		effects := rn.step(core.MessageQueued{Now: rn.now(), Message: m})
		req.reply <- queueReply{ok: true}
		return effects
	}
	queued := rn.state.IsQueued(req.withdraw)
	if queued {
		if _, err := rn.r.cfg.Store.Dequeue(ctx, rn.spec.SessionID, req.withdraw); err != nil {
			req.reply <- queueReply{err: err}
			return nil
		}
	}
	effects := rn.step(core.QueueWithdrawn{Now: rn.now(), ID: req.withdraw})
	req.reply <- queueReply{ok: queued}
	return effects
}

// startNext starts the session's next run with the messages the last (completed) one did not
// deliver, read from the store, under the same agent. If the person started a run meanwhile,
// that run took them.
func (r *Runner) startNext(prev RunSpec) {
	msgs, err := r.storedQueue(r.base, prev.SessionID, "")
	if err != nil || len(msgs) == 0 {
		if err != nil {
			r.log.Error("read the queued messages", "session", prev.SessionID, "err", err)
		}
		return
	}
	spec := prev
	spec.Prompt, spec.PromptQueuedID, spec.Queued, spec.CompactThrough, spec.Checked = "", "", msgs, 0, nil
	spec.rowFirst = true
	if c := spec.Child; c != nil {
		link := *c
		link.Waiting = nil // the task call has its answer: no run waits for this one
		spec.Child = &link
	}
	if _, err := r.Start(r.base, spec); err != nil && !errors.Is(err, ErrBusy) {
		r.log.Error("start the run for the queued messages", "session", prev.SessionID, "err", err)
	}
}
