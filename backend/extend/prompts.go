package extend

import (
	"context"
	"log/slog"
	"sync"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// PromptHooks checks prompts with the person's hooks (loop.Admission): SessionStart fires
// before the first run of a session in this process, UserPromptSubmit for every prompt and
// every message queued on a running run (once: a queued message sent with "Send now" is not
// checked again). A block refuses the prompt with the hook's reason; a "continue": false
// refuses it too, naming the event (and ends the running run a queued message was for;
// SessionStart fires again at the next Start). What the hooks add reaches the model after
// the prompt, framed as Loopdesk's note. Every hook run is a hook row.
func PromptHooks(engine Engine, log *slog.Logger) loop.Admission {
	return &promptHooks{firer: newFirer(engine, log)}
}

type promptHooks struct {
	firer
	seen sync.Map // session ids whose SessionStart hooks have fired in this process
}

func (p *promptHooks) Admit(ctx context.Context, in loop.Prompt) loop.Admitted {
	var a loop.Admitted
	fire := func(h hooks.Input) hooks.Outcome {
		out, rows := p.fireIn(ctx, h, in.SessionID, in.Workspace, string(in.Mode), in.Plan)
		a.Rows = append(a.Rows, rows...)
		return out
	}
	if !in.Queued {
		if _, seen := p.seen.LoadOrStore(in.SessionID, true); !seen {
			out := fire(hooks.Input{Event: hooks.SessionStart, Source: in.Source()})
			a.Notes = append(a.Notes, out.Context...)
			if out.Stop {
				p.seen.Delete(in.SessionID) // nothing was sent: the next Start fires it again
				a.Refused, a.Notes = core.HookStopText(string(hooks.SessionStart), out.StopReason), nil
				return a
			}
		}
	}
	if in.Text == "" || in.Checked {
		return a
	}
	out := fire(hooks.Input{Event: hooks.UserPromptSubmit, Prompt: in.Text})
	switch {
	case out.Stop:
		a.Refused, a.StopRun, a.Notes = core.HookStopText(string(hooks.UserPromptSubmit), out.StopReason), in.Queued, nil
	case out.Decision == hooks.Block:
		a.Refused, a.Notes = out.Reason, nil
	default:
		a.Notes = append(a.Notes, out.Context...)
	}
	return a
}
