package extend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// ErrHookBlocked: a hook refused the prompt; nothing was sent or stored but the hook's row.
// The error text carries the hook's reason.
var ErrHookBlocked = errors.New("blocked by a UserPromptSubmit hook")

// Sessions reads a session, for how it began (SessionStart's source).
type Sessions interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
}

// PromptHooks checks prompts with the person's hooks (loop.Admission): SessionStart fires
// before the first run of a session in this process, UserPromptSubmit for every prompt and
// every message queued on a running run (once: a queued message sent with "Send now" is not
// checked again). A block refuses the prompt with the hook's reason; a "continue": false
// refuses it too, naming the event (and ends the running run a queued message was for;
// SessionStart fires again at the next Start). What the hooks add reaches the model after
// the prompt, framed as Loopdesk's note, or with the queued message until the row that
// delivers it. Every hook run is a hook row, stored whether or not the prompt was refused.
func PromptHooks(engine Engine, sessions Sessions, log *slog.Logger) loop.Admission {
	return &promptHooks{firer: newFirer(engine, log), sessions: sessions}
}

type promptHooks struct {
	firer
	sessions Sessions
	seen     sync.Map // session ids whose SessionStart hooks have fired in this process
}

// checked is what the hooks said of a prompt: the rows of their runs, their notes for the
// model, and why they refused it ("" when they did not); stopRun: a queued message's check
// also ends the running run.
type checked struct {
	rows    []store.NewChunk
	notes   []string
	refused string
	stopRun bool
}

func (p *promptHooks) Admit(ctx context.Context, run loop.RunInfo, spec *loop.RunSpec) error {
	source := func() string {
		var last int64 // the rows held start at the last compaction: their last seq says it
		if n := len(run.Rows); n > 0 {
			last = run.Rows[n-1].Seq
		}
		sess, err := p.sessions.GetSession(ctx, run.SessionID)
		if err != nil {
			sess = store.Session{} // its lineage unread: a session with rows resumes
		}
		return sess.Source(last)
	}
	a := p.check(ctx, run, spec.Prompt, spec.PromptQueuedID != "", source)
	if a.refused != "" {
		run.Record(a.rows...)
		return fmt.Errorf("%w: %s", ErrHookBlocked, a.refused)
	}
	spec.Checked = a.rows
	for _, n := range a.notes {
		spec.Checked = append(spec.Checked, store.NewChunk{Kind: store.KindNote, Payload: store.NotePayload{Source: core.NoteSourceHook, Text: n}})
	}
	return nil
}

func (p *promptHooks) AdmitQueued(ctx context.Context, run loop.RunInfo, text string) ([]string, error) {
	a := p.check(ctx, run, text, false, nil)
	run.Record(a.rows...)
	if a.refused == "" {
		return a.notes, nil
	}
	if a.stopRun {
		run.Stop(a.refused)
	}
	return nil, fmt.Errorf("%w: %s", ErrHookBlocked, a.refused)
}

// check fires the hooks of a prompt: a run's own (source says how its session began) or,
// with source nil, a message queued on a running run. A prompt checked when it was queued
// (already) passes the session's start only.
func (p *promptHooks) check(ctx context.Context, run loop.RunInfo, text string, already bool, source func() string) checked {
	var a checked
	fire := func(h hooks.Input) hooks.Outcome {
		out, rows := p.fireIn(ctx, h, run.SessionID, run.Workspace.Root(), string(run.Mode), run.Plan)
		a.rows = append(a.rows, rows...)
		return out
	}
	queued := source == nil
	if !queued {
		if _, seen := p.seen.LoadOrStore(run.SessionID, true); !seen {
			out := fire(hooks.Input{Event: hooks.SessionStart, Source: source()})
			a.notes = append(a.notes, out.Context...)
			if out.Stop {
				p.seen.Delete(run.SessionID) // nothing was sent: the next Start fires it again
				a.refused, a.notes = core.HookStopText(string(hooks.SessionStart), out.StopReason), nil
				return a
			}
		}
	}
	if text == "" || already {
		return a
	}
	out := fire(hooks.Input{Event: hooks.UserPromptSubmit, Prompt: text})
	switch {
	case out.Stop:
		a.refused, a.stopRun, a.notes = core.HookStopText(string(hooks.UserPromptSubmit), out.StopReason), queued, nil
	case out.Decision == hooks.Block:
		a.refused, a.notes = out.Reason, nil
	default:
		a.notes = append(a.notes, out.Context...)
	}
	return a
}
