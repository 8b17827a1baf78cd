// Package loop is the runner of the agent loop: it drives the pure core, backend/loop/core.
//
// The core is a state machine in the style of etcd's raft: core.Next(state, input) returns
// the next state and a list of effects, and makes every decision of a run (see its doc.go and
// its golden transcripts). It never reads a clock, makes an id or does I/O; the time, the ids
// and the rows' seqs arrive on inputs. This package names the core's types through aliases
// (core_names.go) and converts between them and the tools, store and provider types in one
// file, runner_convert.go; every other file does I/O only. fitness_test.go fails on a runner
// file that compares or computes a budget, assigns an approval mode, or writes rows outside
// the persist executor (runner_finish.go: append, storeEnd).
//
// A run drives three ports (ports.go): the model, the approver and the tool runner. The
// extensions of Config.Extensions (backend/extend: hooks around tool calls, skill grants,
// hunk review, image fitting; composed once in stack.New) wrap them for each run, in the
// shape of connect-go's interceptors; the runner calls the wrapped ports and knows nothing
// of what the extensions do. What an extension makes that must be stored (a hook's runs)
// comes back through RunInfo.Record and the persist executor; a stop it asks for comes back
// with its answer (tools.Decision.HookStop, tools.Meta.HookStop) or through RunInfo.Stop.
//
// The runner (runner*.go) owns one goroutine per running session and is the only caller of
// core.Next for that session. Its duties, in order, for every batch of effects:
//
//  1. Feed Started with the run id, the time, the prompt, the run's tools with their kinds
//     (read-only; the task tool, the plan tool, the tools the run's agent was not given), its
//     approval mode and agent, the Stop hook event when one is configured, the session's rows
//     (core.RowRef, with the summaries in effect) and how its last run ended; before that,
//     check that the session can take the run (Store.CheckIdle; the run's row is written with
//     its first rows, see Durable commits, so a crash after the prompt is stored leaves an
//     audit row). Before every later input, feed Stored with the rows stored since, so the
//     core's compaction cuts see them. Rows an extension records arrive on the owner as
//     core.Recorded; the core hands them back as Persist.
//  2. Carry out every effect, strictly in the order returned (none is skipped: a stop reaches
//     the core as an input):
//     - Persist: append the rows in one transaction (one call of Store.Append, or
//     Store.StartRunWith for the run's first rows), together with any deferred rows before
//     them (see Durable commits); the rows of the batch that ends the run wait for Done. A
//     failure ends the run; the rows already written stay valid because every assistant turn
//     with tool calls is followed, in the same batch or a later one, by one result per call.
//     - Emit: publish the payload on the bus, stamped with session id, run id and the next
//     per-session sequence number.
//     - CallModel: derive the messages from the stored rows (store.Turns, the one
//     deterministic function, through the session's store.TurnCache and provider.Cache so
//     only what changed is decoded and encoded), stream the model call through the model
//     port, publish deltas as they arrive, and feed ModelResponded (with the turn's raw
//     message and origin) when the stream ends. Classify a length refusal
//     (provider.ContextExceeded) as ResponseContextExceeded and an image refusal
//     (provider.ImageRejected) as ResponseImageRefused with the images the request carried
//     (store.SentImages); pass the provider's status through otherwise.
//     - RequestApproval: ask the approver port about each call, concurrently, under the mode
//     the core chose for it (RequestApproval.Mode); feed one ApprovalDecided per call, in the
//     order the answers arrive.
//     - RunTools: run the batches one after the other and the calls of a batch in parallel
//     through the tool port (the core puts only read-only calls together), publishing
//     tool_started and tool_output; feed one ToolFinished per call. A task call's child runs
//     with RunTools.Child as its budgets.
//     - Compact: ask the model for a summary of the rows through the core's cut (ThroughSeq)
//     and feed Compacted (OK false when the call failed). The core never asks when nothing
//     can be cut.
//     - FireHook: fire the event's hooks (Config.Hooks: a completed run's Stop or SubagentStop,
//     PreCompact before a summary call; runner_fire.go), record their runs, and feed
//     HookAnswered with what they said.
//     - Done: store the result as the run's audit row (Store.FinishRun, or
//     Store.AppendAndFinish with the rows held for it), then publish run_finished. Nothing is
//     fed after Done.
//  3. While waiting for an answer, feed CancelRequested when Cancel is called (or an
//     extension asked to stop: Reason hook_stopped) and Ticked when the wall-clock deadline
//     passes; then cancel the outstanding work and discard its late answers: the core has
//     already given every outstanding call its one result.
//  4. Never block the owner goroutine on a person: approvals, model calls, tools and hooks
//     run in goroutines that report back on a channel, and every send selects on the run's
//     context.
//  5. Steering (runner_steer.go): before Started, build the system prompt (the spec's, the
//     AGENTS.md files read afresh, the plan notice, the folder's skills) and record the files
//     and the mode on the run row; pass how the session's last run ended as
//     Started.PreviousStop. Feed MessageQueued and QueueWithdrawn from Runner.Queue and
//     Runner.Withdraw on the owner goroutine only; the core delivers queued messages at the
//     next tool boundary. After Done, start the next run with State.Queued(), if any.
//  6. Children (runner_task.go, with Config.Tasks): offer the task tool (narrowed by the run's
//     agent, never to a child past MaxTaskDepth); a task call goes through the tool port like
//     any call (taskTools, the innermost layer); its worker creates the child session
//     (parent_id, parent_call_id), starts its run through Start with the parent's mode,
//     sandbox, plan mode and the core's share of the budgets left, waits for it to be stored,
//     and returns the child's answer and spend (tools.Meta.Child, fed as ToolFinished.Child).
//     When the parent's work is cancelled the worker cancels the child and still waits for
//     it. A child's events carry ParentCallID and ParentSessionID. Whenever a child's
//     State.Waiting changes (it waits for the person: its approvals or its own children's),
//     its owner feeds the parent's core ChildWaiting for the task call (relayWaiting), before
//     the child's end is stored, so the parent's clock sets the wait aside too.
//  7. Prompts (prompts.go, with Config.Admission: extend.PromptHooks): Start has the prompt
//     checked before the run exists (a refusal fails Start with ErrHookBlocked, its rows
//     stored), Queue a message before it is queued (the owner stores the rows; a stop ends
//     the running run); the check's rows and notes are stored after the prompt, or with the
//     queued message until the row that delivers it.
//
// # Durable commits
//
// Every commit is a synchronous SQLite transaction (WAL, synchronous=FULL: an fsync), the
// largest part of a tool turn's cost after the model. The journal's guarantees need exactly
// these rows durable before the runner goes on:
//
//   - the run's first rows (normally the prompt) before the model is asked, with the run's
//     row in the same transaction (Store.StartRunWith): Start only checks that the session
//     can take a run (Store.CheckIdle; the transaction checks again), and the row waits for
//     the first write the run makes, or for the first model call, compaction or hook row when
//     the run stores nothing first (a resumed run). A run started for messages left queued
//     (startNext) writes its row before Start returns: whoever waits on the run before sees
//     the next one recorded;
//   - the assistant row that makes tool calls before any of its tools runs: a crash while a
//     tool runs must leave the call on record, so recovery answers it as interrupted and the
//     person sees what may have changed files;
//   - each tool result (and a summary) before the next model request is built from the rows;
//   - the run's last rows and its result (Store.FinishRun) before run_finished is published.
//
// Everything else waits for the next of those commits, in its order among the rows:
//
//   - Approval rows: the call they decide is already durable and a crash before its result
//     is answered the same way whether or not the decision was written, so the runner defers
//     them (run.journal.deferred) and writes them in the transaction of the next rows that must be
//     durable (normally the call's result), before the next model call or compaction, or at
//     the end of the run. The person sees the decision at once through approval_decided.
//   - The rows of the batch that ends the run (the answer; results given to calls a stop
//     cancelled), when they hold Done: the core fires a configured Stop or SubagentStop hook
//     (FireHook) before it ends a completed run, and a Stop hook reads the transcript, which
//     must hold the answer it judges, so the answer of a run with one is stored at once. Held, they are written with the run's end in one transaction
//     (Store.AppendAndFinish, runner_finish.go), and the events that report them
//     (assistant_message, usage, budget, tool_finished) are held with them and published,
//     after rows_stored, once they are stored, then run_finished: the page never hears of a
//     row the journal does not hold. A crash before that commit loses the answer with the
//     run's end; recovery marks the run interrupted, as for a crash during the model call.
//
// A run of n tool turns with one call each and a final answer therefore makes 2n+2 commits:
// the run with its prompt, per tool turn the call and its result (with its approval), and
// the answer with the run's end. BenchmarkRunnerTurn counts them at the store (commits/turn,
// docs/benchmarks.md): 2.0 for 4 tool turns and the answer.
//
// Each commit writes what the journal needs and little else (docs/benchmarks.md, "Cheaper
// commits"): the rows, the session's tail and the run's counters. The full-text index is
// derived from the rows and is not part of the commit: the store indexes the rows left out
// in batches, before every search and every 64 rows (backend/store/search.go), so a search
// still finds every committed row, and a crash loses no row and no search hit.
package loop
