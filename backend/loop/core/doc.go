// Package core is the agent loop's pure state machine, in the style of etcd's raft:
// Next(state, input) returns the next state and the effects the driver must carry out, in
// order. It never reads a clock, makes an id or does I/O: the time and ids arrive on inputs,
// and it imports only the standard library (deps_test.go lists its dependencies and fails on
// any Loopdesk package or any package that does I/O). Every input a phase does not expect is an
// error, never silently ignored.
//
// Every decision of a run is made here and shown in the golden transcripts of testdata/
// (NAME__STATUS.jsonl in, NAME__STATUS.golden out; -update rewrites them, and every golden
// diff is read before it is accepted):
//
//   - bounds and stop reasons, and the budget arithmetic, once (bounds.go: Limits.Left is what
//     is left of each limit, Limits.Share a task call's child's share of it, Limits.CapTurns
//     an agent's turn bound);
//   - which time the time budget counts (worktime.go): the run's own, never the person's. The
//     time the run waits for approvals is set aside, its own (PhaseApproving) and a task
//     call's child's (ChildWaiting, which the child's driver feeds when the child's
//     State.Waiting changes, so a grandchild's wait reaches every ancestor); meanwhile the run
//     has no Deadline and its Time meter holds still;
//   - which calls are answered without running (invalid arguments, loop detection, the
//     tool-call budget, a tool the run's agent was not given: ToolNarrowed);
//   - which are decided without asking anyone (a tool the run does not offer is approved, for
//     the tool runner to answer unknown_tool; in plan mode every tool that is not read-only is
//     refused) and which are asked about under the read-only mode so they run unasked (the
//     task and plan tools, RequestApproval.Modes, unless the run's mode is deny);
//   - which calls only the person approves (person.go: a ToolPersonOnly call, remember or a
//     message to another session, is asked about under ApprovalPerson whatever the run's mode,
//     and refused ByNoPerson at once when Started.NoPerson says nobody can be asked);
//   - which approved calls run together (RunTools.Batches: consecutive read-only calls) and
//     what each task call's child may spend (RunTools.Child);
//   - when queued messages are delivered (at a tool boundary); when to compact and through
//     which row (CompactionCut, CutAt, over the rows the driver reports on Started, Stored and
//     Recorded); after a context_exceeded stop, which exchange was in flight (InFlight) and
//     whether to set it aside;
//   - what follows an image refusal (images.go: the images to blame, one image_excluded row,
//     the same turn asked once more);
//   - hooks (hooks.go): a completed run fires its Stop hook (FireHook) and the answer
//     (HookAnswered) ends it, stops it as hook_stopped, or sends it back to the model with the
//     reason as a note, at most MaxStopContinuations times and while Limits.Left has budget;
//     a PreCompact hook fires before each summary call and its stop ends the run before it;
//     a hook's "continue": false that comes with an answer (ApprovalDecided.HookStop,
//     ToolFinished.HookStop) ends the run once the answer is recorded.
//
// Inputs: Started, ModelResponded, ApprovalDecided, ToolFinished, ChildWaiting, Compacted,
// HookAnswered, CancelRequested, Failed, Ticked, MessageQueued, QueueWithdrawn, Stored,
// Recorded. Effects (a
// closed set): CallModel, RequestApproval, RunTools, Compact, FireHook, Persist, Emit, Done.
//
// The driver is backend/loop's runner; its duties are listed in backend/loop/doc.go. What
// changes what crosses the driver's ports without deciding anything (a hook's text, a skill's
// grants, a hunk review, image fitting) is an extension (backend/extend), not a rule here.
package core
