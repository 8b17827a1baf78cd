package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The runner's part of hooks (backend/hooks, docs/hooks.md): where each event fires, and
// what its outcome does to the run. Every hook run becomes a `hook` row; what the model must
// hear from a hook reaches it framed as Loopdesk's note (a note row, or inside the call's
// result), never as the person's words.

// Hooks fires the person's hooks (*hooks.Engine). Fire runs every hook of the event that
// applies to in.Workspace and returns their combined outcome; it never returns later than
// the longest hook timeout.
type Hooks interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Outcome
}

// ErrHookBlocked: a UserPromptSubmit hook refused the prompt; nothing was sent or stored
// but the hook's row. The error text carries the hook's reason.
var ErrHookBlocked = errors.New("blocked by a UserPromptSubmit hook")

// MaxStopContinuations bounds how many times in a row Stop hooks may send a completed run
// back to the model (decided in the core: core/hooks.go).
const MaxStopContinuations = core.MaxStopContinuations

// NoteSourceHook is the Source of note rows a hook's context or Stop reason becomes.
const NoteSourceHook = core.NoteSourceHook

// hookState is what a run keeps between hook events.
type hookState struct {
	mu sync.Mutex
	// notes are framed notes to store after the prompt (UserPromptSubmit, SessionStart).
	notes []string
	rows  []store.HookPayload // hook rows of prepare, stored once the run exists
	// stopDetail is set (under mu) when a hook answered "continue": false: the run ends as
	// hook_stopped with it as its error, before it starts any more work.
	stopDetail string
}

// requestStop ends the run as hook_stopped with detail (RunInfo.Stop, and the hooks the
// runner fires itself whose stop comes with no answer): the owner feeds it to the core as
// CancelRequested. The first stop wins.
func (rn *run) requestStop(detail string) {
	rn.hooks.mu.Lock()
	if rn.hooks.stopDetail == "" {
		rn.hooks.stopDetail = detail
	}
	rn.hooks.mu.Unlock()
	rn.cancelOnce.Do(func() { close(rn.cancel) })
}

// hookStopText is what the person reads of a hook's "continue": false (the run's error).
func hookStopText(event hooks.Event, stopReason string) string {
	return core.HookStopText(string(event), stopReason)
}

func (rn *run) hookStopDetail() string {
	rn.hooks.mu.Lock()
	defer rn.hooks.mu.Unlock()
	return rn.hooks.stopDetail
}

// cancelInput is the CancelRequested the owner feeds when the run is cancelled: a hook's
// stop when one asked, else the person's.
func (rn *run) cancelInput() CancelRequested {
	in := CancelRequested{Now: rn.now()}
	if d := rn.hookStopDetail(); d != "" {
		in.Reason, in.Detail = StopHook, d
	}
	if rn.state.Phase == PhaseStreaming {
		// The model call is cut now, and its worker hands back what had streamed.
		rn.stopWork()
		in.Partial, rn.cut = rn.cut, nil
	}
	return in
}

// permissionMode is the run's approval mode as hooks read it ("plan" in plan mode).
func (rn *run) permissionMode() string {
	if rn.spec.Plan {
		return "plan"
	}
	return string(rn.spec.Mode.OrDefault())
}

func (rn *run) fire(ctx context.Context, in hooks.Input) (hooks.Outcome, bool) {
	h := rn.r.cfg.Hooks
	if h == nil {
		return hooks.Outcome{}, false
	}
	in.SessionID, in.Workspace, in.PermissionMode = rn.spec.SessionID, rn.root, rn.permissionMode()
	out := h.Fire(ctx, in)
	for _, w := range out.Warnings {
		rn.r.log.Warn("hook", "session", rn.spec.SessionID, "event", in.Event, "warning", w)
	}
	return out, len(out.Runs) > 0
}

// promptHooks fires SessionStart (the first run of the session in this process) and
// UserPromptSubmit, before the run row exists. A blocked prompt fails Start with
// ErrHookBlocked; the hook rows are stored either way.
func (rn *run) promptHooks(ctx context.Context) error {
	if rn.r.cfg.Hooks == nil {
		return nil
	}
	if _, seen := rn.r.hookSeen.LoadOrStore(rn.spec.SessionID, true); !seen {
		out, _ := rn.fire(ctx, hooks.Input{Event: hooks.SessionStart, Source: rn.sessionSource(ctx)})
		rn.hooks.notes = append(rn.hooks.notes, out.Context...)
		rn.hooks.rows = append(rn.hooks.rows, out.Runs...)
		if out.Stop {
			// "continue": false before anything was sent: like a blocked prompt (the next
			// Start fires SessionStart again).
			rn.r.hookSeen.Delete(rn.spec.SessionID)
			return rn.refusePrompt(ctx, hooks.SessionStart, out.StopReason)
		}
	}
	if rn.spec.Prompt == "" {
		return nil
	}
	if rn.spec.PromptQueuedID != "" {
		// "Send now" on a queued message: its hooks ran when it was queued, and what they
		// added is stored with it (delivered by withQueuedContext). They never run twice.
		return nil
	}
	out, _ := rn.fire(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: rn.spec.Prompt})
	rn.hooks.rows = append(rn.hooks.rows, out.Runs...)
	if out.Stop {
		return rn.refusePrompt(ctx, hooks.UserPromptSubmit, out.StopReason)
	}
	if out.Decision == hooks.Block {
		return rn.refusePrompt(ctx, "", out.Reason)
	}
	rn.hooks.notes = append(rn.hooks.notes, out.Context...)
	return nil
}

// refusePrompt ends Start before the run exists: the hook rows say why nothing was sent, the
// error (ErrHookBlocked) says it to the person. A stop names its event; a block does not.
func (rn *run) refusePrompt(ctx context.Context, stopped hooks.Event, reason string) error {
	rn.storeHookRows(ctx, "", rn.hooks.rows)
	rn.hooks.rows, rn.hooks.notes = nil, nil
	if stopped != "" {
		return fmt.Errorf("%w: %s", ErrHookBlocked, hookStopText(stopped, reason))
	}
	return fmt.Errorf("%w: %s", ErrHookBlocked, reason)
}

// sessionSource is SessionStart's source: new (no rows yet), fork, or resume.
func (rn *run) sessionSource(ctx context.Context) string {
	sess, err := rn.r.cfg.Store.GetSession(ctx, rn.spec.SessionID)
	switch {
	case len(rn.chunks) == 0:
		return "new"
	case err == nil && sess.ParentID != "" && sess.ParentCallID == "" && int64(len(rn.chunks)) <= sess.ForkSeq:
		return "fork"
	}
	return "resume"
}

// afterPrompt runs the start-up effects up to the one storing the prompt, then stores the
// hook rows of prepare, and the hooks' context and the spec's Notes as note rows, so the
// first request carries them; it returns the effects still to run.
func (rn *run) afterPrompt(effects []Effect) []Effect {
	if len(rn.hooks.rows) == 0 && len(rn.hooks.notes) == 0 && len(rn.spec.Notes) == 0 && rn.spec.Command == "" {
		return effects
	}
	cut := 0
	for i, e := range effects {
		if p, ok := e.(Persist); ok && len(p.Rows) > 0 && p.Rows[0].Kind() == KindUser {
			cut = i + 1
			if u, ok := p.Rows[0].(UserRow); ok && rn.spec.Command != "" {
				rows := append([]Row{commandRow{UserRow: u, Command: rn.spec.Command}}, p.Rows[1:]...)
				effects = append(append(effects[:i:i], Persist{Rows: rows}), effects[i+1:]...)
			}
			break
		}
	}
	if more := rn.execute(effects[:cut]); len(more) > 0 {
		return more
	}
	rows := make([]Row, 0, len(rn.hooks.rows)+len(rn.hooks.notes)+len(rn.spec.Notes))
	for _, c := range hookChunks(rn.hooks.rows) {
		rows = append(rows, recordedRow{c})
	}
	for _, n := range rn.hooks.notes {
		rows = append(rows, core.NoteRow{Source: NoteSourceHook, Text: n})
	}
	for _, n := range rn.spec.Notes {
		rows = append(rows, recordedRow{store.NewChunk{Kind: store.KindNote, Payload: n}})
	}
	// With no prompt row first, these rows write the run's row.
	if err := rn.persist(rows); err != nil {
		rn.r.log.Error("store the prompt's hook rows and notes", "session", rn.spec.SessionID, "run", rn.id, "err", err)
	}
	rn.hooks.rows, rn.hooks.notes, rn.spec.Notes = nil, nil, nil
	return effects[cut:]
}

// writeCtx bounds a write made on the way out of a hook event: not cancelled with the run's
// work (the rows of a hook that ran are kept), but bounded like every write.
func (rn *run) writeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(rn.r.base), rn.r.cfg.PersistTimeout)
}

// storeHookRows appends hook rows and publishes them. Any goroutine may call it: the rows
// are not sent to the model, so the owner's mirror of the rows does not need them.
func (rn *run) storeHookRows(ctx context.Context, runID string, rows []store.HookPayload) []store.Chunk {
	return rn.r.storeHookRows(ctx, rn.spec.SessionID, runID, rows)
}

func (r *Runner) storeHookRows(ctx context.Context, sessionID, runID string, rows []store.HookPayload) []store.Chunk {
	if len(rows) == 0 {
		return nil
	}
	added, err := r.cfg.Store.Append(ctx, sessionID, runID, hookChunks(rows)...)
	if err != nil {
		r.log.Error("hook rows not stored", "session", sessionID, "err", err)
	}
	if len(added) > 0 {
		if _, err := r.bus.Publish(ctx, Event{SessionID: sessionID, RunID: runID, Payload: RowsStoredPayload{Rows: RowsOf(added)}}); err != nil {
			r.log.Warn("event not delivered to every subscriber", "err", err)
		}
	}
	return added
}

// queuedPromptHooks fires UserPromptSubmit for a message about to be queued on the session's
// running run (a run's own prompt is checked by Start). A blocking hook returns
// ErrHookBlocked with its reason; "continue": false also ends the running run. The context
// the hooks add is returned, to be stored with the message (handleQueue) and delivered with
// the row that delivers it (withQueuedContext). Their runs are recorded either way. No run
// going: nothing to check here (Queue then fails, and Start checks the message as a prompt).
func (r *Runner) queuedPromptHooks(ctx context.Context, sessionID, text string) ([]string, error) {
	r.mu.Lock()
	rn, runID := r.bySession[sessionID], ""
	if rn != nil {
		runID = rn.id // set under r.mu once the run exists; its root is set before
	}
	r.mu.Unlock()
	if r.cfg.Hooks == nil || runID == "" {
		return nil, nil
	}
	out := r.cfg.Hooks.Fire(ctx, hooks.Input{Event: hooks.UserPromptSubmit, SessionID: sessionID, Workspace: rn.root,
		PermissionMode: rn.permissionMode(), Prompt: text})
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.PersistTimeout)
	defer cancel()
	r.storeHookRows(wctx, sessionID, runID, out.Runs)
	if out.Stop {
		rn.requestStop(hookStopText(hooks.UserPromptSubmit, out.StopReason))
		return nil, fmt.Errorf("%w: %s", ErrHookBlocked, rn.hookStopDetail())
	}
	if out.Decision == hooks.Block {
		return nil, fmt.Errorf("%w: %s", ErrHookBlocked, out.Reason)
	}
	return out.Context, nil
}

// hookChunks are the rows of hook runs.
func hookChunks(runs []store.HookPayload) []store.NewChunk {
	out := make([]store.NewChunk, len(runs))
	for i, h := range runs {
		out[i] = store.NewChunk{Kind: store.KindHook, Payload: h}
	}
	return out
}

// withQueuedContext adds, after each user row delivering a queued message, the context its
// UserPromptSubmit hooks gave when it was queued, read from the stored queue, as note rows
// in the same transaction (which also removes the message): the model reads it right after
// the message, framed as Loopdesk's note, exactly as for a typed message, whether the
// message is delivered at a tool boundary, by "Send now" or with the next run after a
// restart. Only the owner goroutine appends, so the message is still stored here.
func (rn *run) withQueuedContext(ctx context.Context, rows []Row, chunks []store.NewChunk) []store.NewChunk {
	var held map[string][]string
	out := make([]store.NewChunk, 0, len(chunks))
	for i, row := range rows {
		out = append(out, chunks[i])
		u, ok := row.(UserRow)
		if !ok || u.QueuedID == "" {
			continue
		}
		if held == nil {
			held = rn.queuedContexts(ctx)
		}
		for _, text := range held[u.QueuedID] {
			out = append(out, store.NewChunk{Kind: store.KindNote, Payload: store.NotePayload{Source: NoteSourceHook, Text: text}})
		}
	}
	return out
}

// queuedContexts reads the hook context of the session's queued messages, by id. A failed
// read is logged: the messages are still delivered (the append that follows reports the
// store's trouble, if it lasts).
func (rn *run) queuedContexts(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	queued, err := rn.r.cfg.Store.Queued(ctx, rn.spec.SessionID)
	if err != nil {
		rn.r.log.Error("read the queued messages' hook context", "session", rn.spec.SessionID, "err", err)
	}
	for _, m := range queued {
		out[m.ID] = m.HookContext
	}
	return out
}

// preCompact fires PreCompact before a summary call ("manual" when the person asked for it).
// Its hooks cannot veto the compaction alone; "continue": false ends the run before it (the
// result is false: no summary call is made).
func (rn *run) preCompact() bool {
	trigger := "auto"
	if rn.spec.CompactThrough > 0 {
		trigger = "manual"
	}
	out, _ := rn.fire(rn.op, hooks.Input{Event: hooks.PreCompact, Trigger: trigger})
	rn.record(hookChunks(out.Runs)...)
	if out.Stop {
		rn.requestStop(hookStopText(hooks.PreCompact, out.StopReason))
		return false
	}
	return true
}

// fireStopHook fires the Stop hook the core asked for (the run completed and its answer is
// stored) and feeds the hooks' answer back; the core decides what it does to the run. A Stop
// (or Close) while the hooks run kills them with the run's work, and the core completes the run.
func (rn *run) fireStopHook(e FireHook) {
	out, _ := rn.fire(rn.op, hooks.Input{Event: hooks.Event(e.Event), Active: e.Active})
	rn.record(hookChunks(out.Runs)...)
	rn.send(HookAnswered{Now: rn.now(), Stop: out.Stop, StopReason: out.StopReason, Block: out.Decision == hooks.Block, Reason: out.Reason})
}

// stopHook is the event the core fires when the run completes (Started.StopHook): "" when no
// hooks engine is set, the run is a compaction the person asked for, or the engine says no
// hook of the event is configured for the run's folder.
func (rn *run) stopHook() string {
	h := rn.r.cfg.Hooks
	if h == nil || rn.spec.CompactThrough > 0 {
		return ""
	}
	event := rn.stopEvent()
	if l, ok := h.(hookLister); ok {
		ctx, cancel := rn.writeCtx()
		defer cancel()
		if !l.Has(ctx, rn.root, event) {
			return ""
		}
	}
	return string(event)
}
