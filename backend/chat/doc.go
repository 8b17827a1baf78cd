// Package chat is the one use-case layer every front end calls — the window
// (backend/desktop), `loopdesk run` and `loopdesk sessions` (backend/cli) and ACP
// (backend/acp): what a person can do to a conversation, each done once, here. The front
// ends are adapters: they read their input, say how their configuration makes a run
// (Config.Spec) and show the events; none assembles a run itself.
//
// # Operations
//
//   - Start starts a run of a session. The spec is the front end's configuration
//     (Config.Spec: model, provider, approval mode, limits, system prompt, sandbox), then the
//     session's own settings from the store (its plan/execute mode unless Run.Plan names one,
//     its approval mode and budgets unless Config.Flags name them), then the run's own input
//     (Run). A session still called DefaultTitle (or untitled) is named after the prompt once
//     the run has started: the one place a session gets its title.
//   - Send queues a message on the session's running run (it reaches the model at the next
//     tool boundary) or, when none is running, starts a run with it.
//   - Stop cancels the session's run, if one is going.
//   - Edit forks the session just before the person's message at a row, sends the new text
//     in the fork and runs there (EditPoint says where it forks).
//   - Regenerate forks the session just before the run that produced a reply (keeping the
//     message that run answered) and runs again there: the new reply is a version of the
//     old one. Row 0 names the session's last reply (RegeneratePoint says where it forks).
//   - Retry runs the session again from its stored rows, in the same session, after a run
//     that ended in a provider error, a timeout, an error, a cancel or an interruption
//     (Retryable); nothing is added before the model is called, so no message goes twice.
//   - Fork copies rows 1..seq into a new session.
//
// A fork made by Edit or Regenerate whose run cannot start is deleted again: a failed
// control leaves no empty session behind. The original session is never changed, except by
// a restore its caller asked for (Files).
//
// # The folder under a new version
//
// A version's run works in the session's folder as the abandoned rows left it. Abandoned
// lists the files those rows changed; with FilesRestore, Edit and Regenerate first restore
// them to before the branch point (a restore row of the original session, published as
// rows_stored; a file changed since by someone else is a conflict that fails the control and
// forks nothing); with FilesKeep, the new run's first request carries a note
// (NoteSourceKeptFiles) naming them. Kept-files notes among the abandoned rows go with the
// new version either way.
//
// # Errors
//
// stack.ErrInvalidInput: an empty message, a row that is not the person's message (Edit) or
// not a reply of the model (Regenerate), a session with no reply to regenerate or no run to
// retry, a last run that did not end in a way Retry runs again from. store.ErrSeqOutOfRange
// for a row the session does not have, store.ErrNotFound for a session that does not exist,
// loop.ErrBusy when the session (or, for a restore, its folder) is running, and whatever
// Config.Spec, the runner or the checkpoint restore returns, wrapped with what was being done.
//
// # Concurrency
//
// A Service holds no state of its own beyond its Config; its methods may be called from any
// goroutine. The runner takes one run per session: a second Start while one runs is
// loop.ErrBusy, which Send turns into queueing.
package chat
