package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// run is one run of one session. Only its loop goroutine touches state; workers talk to it
// through inputs.
type run struct {
	r    *Runner
	spec RunSpec
	id   string
	ws   *tools.Workspace
	root string

	ports   Ports               // the run's model, approver and tools, wrapped by the extensions
	tools   toolset             // what the run offers and runs
	caps    checkpoint.Captures // the captures of calls whose result is not stored yet
	guide   steering
	journal *journal.Journal // the run's rows and its writes (the persist executor)
	ctl     control
	state   core.State
	end     ending
}

// toolset is what the run offers and runs: fixed when the run starts (fixTools), but for the
// calls going and the children's share of the budgets.
type toolset struct {
	specs []tools.Spec
	infos map[string]core.ToolInfo // what the core knows of each of specs (Started.Tools)
	live  tools.LiveCalls          // the calls executing now (RunningCalls)
	task  TaskTool                 // the run's task tool (offerTasks); nil: none
	share core.Limits              // each task call's child's budgets in the running batch (RunTools.Child)
}

// list is what the core knows of the run's tools, in the order of specs (Started.Tools).
func (t *toolset) list() []core.ToolInfo {
	out := make([]core.ToolInfo, len(t.specs))
	for i, s := range t.specs {
		out[i] = t.infos[s.Name]
	}
	return out
}

// steering is what the run tells the model besides the rows.
type steering struct {
	// system is the run's system prompt: the spec's, the AGENTS.md files, the plan notice,
	// the folder's skills; files the instruction files, recorded on the run row.
	system string
	files  []instructions.File
	ctxEst int64 // the size of the session's history with the system prompt, in tokens
	// previous is how the session's last run ended (Started.PreviousStop).
	previous core.StopReason
}

// control is where the owner goroutine and the run's workers meet.
type control struct {
	cancel     chan struct{}
	cancelOnce sync.Once
	inputs     chan core.Input
	// requests carries queue changes from Runner.Queue/Withdraw to the owner goroutine;
	// loopDone is closed when the owner stops reading it.
	requests chan queueRequest
	loopDone chan struct{}
	// op is the context of the outstanding work (model call, approvals, tools); it is
	// cancelled when the run stops so workers return and their late answers are dropped.
	op     context.Context
	opStop context.CancelFunc
	work   sync.WaitGroup
	// cut is what a model call stopped mid-stream had streamed: set by its worker, read by
	// the owner once the worker has returned (cancelInput).
	cut  *core.ModelResponse
	stop stopState // a stop asked for with no answer to carry it (runner_fire.go)
	// waiting is what the parent's core was last told of this run's waiting for the person
	// (relayWaiting); owned by the loop goroutine.
	waiting bool
}

// ending is the run's outcome as others wait for it.
type ending struct {
	result    core.Result
	done      chan struct{}
	finishing bool // run_finished is being published; guarded by Runner.mu
}

// prepare does the part of Start that must succeed before Start returns: the session, the
// workspace, and the run row. Its errors say "start run on session S" once.
func (rn *run) prepare(ctx context.Context) error {
	if err := rn.open(ctx); err != nil {
		return fmt.Errorf("start run on session %s: %w", rn.spec.SessionID, err)
	}
	if err := rn.admit(ctx); err != nil {
		rn.ws.Release()
		return fmt.Errorf("start run on session %s: %w", rn.spec.SessionID, err)
	}
	limits, err := json.Marshal(rn.spec.Limits)
	if err == nil {
		// The run's row is written with its first rows (doc.go, "Durable commits"); whether
		// it could start is checked now, and again in that transaction.
		err = rn.r.cfg.Store.CheckIdle(ctx, rn.spec.SessionID)
	}
	if err != nil {
		rn.ws.Release()
		return err // CheckIdle names the session already
	}
	rn.journal.Begin(store.NewRun{ID: store.NewRunID(), SessionID: rn.spec.SessionID, Model: rn.spec.Model, Provider: rn.spec.origin.Provider,
		SystemPromptHash: instructions.PromptHash(rn.guide.system), Limits: limits, Mode: rn.spec.RunMode(), Instructions: store.InstructionsOf(rn.guide.files),
		Sandbox: rn.spec.Sandbox.Describe()})
	rn.r.mu.Lock()
	rn.id = rn.journal.Unwritten().ID
	rn.r.mu.Unlock()
	if rn.spec.rowFirst {
		if _, err := rn.journal.Flush(ctx); err != nil {
			rn.ws.Release()
			return err
		}
	}
	return nil
}

// fixTools waits for the tools still on their way (MCP servers starting) to settle, unless
// the run is cancelled meanwhile, then fixes the run's tools. It returns the servers that
// failed, for run_started.
func (rn *run) fixTools() []string {
	var failed []string
	if s, ok := rn.r.cfg.Tools.(Settler); ok {
		ctx, stop := context.WithCancel(rn.ctl.op)
		go func() {
			select {
			case <-rn.ctl.cancel:
				stop()
			case <-ctx.Done():
			}
		}()
		failed = s.Settle(ctx)
		stop()
	}
	base := rn.r.toolsFor(rn.spec)
	rn.tools.specs = base.Specs()
	rn.tools.infos = agents.ToolInfos(rn.tools.specs, rn.spec.agent())
	rn.offerTasks()
	var calls ToolRunner = base
	if rn.tools.task != nil {
		calls = taskTools{ToolRunner: base, rn: rn}
	}
	rn.ports = rn.wrapPorts(Ports{Model: rn.spec.client, Approver: rn.r.cfg.Approver, Tools: calls})
	return failed
}

// open finds the session, acquires its workspace and loads its rows.
func (rn *run) open(ctx context.Context) error {
	cfg := rn.r.cfg
	sess, err := cfg.Store.GetSession(ctx, rn.spec.SessionID)
	if err != nil {
		return err
	}
	rn.root = rn.spec.Workspace
	if rn.root == "" {
		rn.root = sess.Workspace
	}
	if rn.root == "" {
		return fmt.Errorf("no workspace given and the session has none")
	}
	if rn.ws, err = cfg.Workspaces.Acquire(rn.root); err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	rn.root = rn.ws.Root()
	err = rn.steer(ctx)
	var chunks []store.Chunk
	rc := rn.r.requests.Take(rn.spec.SessionID) // a long session's next run reads only what is new
	if err == nil {
		chunks, err = rc.Rows(ctx, cfg.Store, rn.spec.SessionID)
	}
	if err == nil {
		rn.guide.ctxEst, err = rc.Estimate(chunks, rn.guide.system)
	}
	if err == nil {
		rn.guide.previous, err = rn.previousStop(ctx)
	}
	if err == nil {
		rn.journal, err = journal.Open(cfg.Store, rn.spec.SessionID, chunks)
	}
	if err == nil && len(rn.spec.Queued) == 0 && rn.spec.CompactThrough == 0 {
		// Messages left queued by a run that stopped (Stop, a bound, a crash) go with this
		// run: stored as user rows right after its prompt, in the order they were sent.
		rn.spec.Queued, err = rn.r.storedQueue(ctx, rn.spec.SessionID, rn.spec.PromptQueuedID)
	}
	if err != nil {
		rn.ws.Release()
		return err
	}
	if rn.spec.Limits.Price == (core.Price{}) {
		rn.spec.Limits.Price = cfg.Prices.Lookup(rn.spec.Model)
	}
	return nil
}

func (rn *run) now() time.Time { return rn.r.cfg.Now() }

// loop is the run's owner goroutine.
func (rn *run) loop() {
	defer rn.finish()
	rn.ctl.op, rn.ctl.opStop = context.WithCancel(rn.r.base)
	defer close(rn.ctl.loopDone)
	failed := rn.fixTools()
	in := rn.started()
	in.MCPFailed = failed
	in.ThinkingBudget, in.ImagesDropped = max(rn.spec.ThinkingBudget, 0), rn.spec.ImagesDropped
	if h := rn.r.cfg.Harness; h != nil {
		in.HarnessTokens = h(rn.spec.SystemPrompt, rn.guide.files, rn.guide.system, rn.toolSpecs(), rn.spec.Notes)
		if b, err := json.Marshal(in.HarnessTokens); err == nil && rn.journal.Unwritten() != nil && in.HarnessTokens != nil {
			rn.journal.Unwritten().Harness = b // kept with the run, for a window opened later
		}
	}
	effects := rn.step(in)
	rn.keepTools()
	for {
		for len(effects) > 0 {
			effects = rn.execute(effects) // a failed effect ends the run: more to do
		}
		if rn.state.Phase == core.PhaseDone {
			return
		}
		effects = rn.wait()
	}
}

// started is the input that opens the run in the core, with every row held so far.
func (rn *run) started() core.Started {
	stop, preCompact := rn.hooked()
	rows, err := rn.journal.Opening()
	if err != nil {
		rn.r.log.Error("tell the loop core of stored rows", "session", rn.spec.SessionID, "run", rn.id, "err", err)
	}
	return core.Started{Now: rn.now(), SessionID: rn.spec.SessionID, RunID: rn.id, Model: rn.spec.Model,
		Workspace: rn.root, Prompt: rn.spec.Prompt, Limits: rn.spec.Limits, Sandbox: rn.spec.Sandbox.Describe(), ContextTokens: rn.guide.ctxEst,
		Mode: string(rn.spec.RunMode()), Tools: rn.tools.list(),
		Approval: string(rn.spec.Mode.OrDefault()), Agent: rn.spec.agentName(), Depth: rn.spec.depth(), TaskGranted: rn.spec.Child != nil && rn.spec.Child.TaskGranted, StopHook: stop, PreCompactHook: preCompact, Queued: rn.spec.Queued, PromptQueuedID: rn.spec.PromptQueuedID, PromptImages: rn.spec.Images, Command: rn.spec.Command, AfterPrompt: rn.afterPrompt(), Rows: rows, PreviousStop: rn.guide.previous,
		CompactThrough: rn.spec.CompactThrough, NoPerson: rn.spec.NoPerson}
}

// wait blocks for the next input: an answer from a worker, a cancel, or the deadline.
func (rn *run) wait() []core.Effect {
	var deadline <-chan time.Time
	if at, ok := rn.state.Deadline(); ok { // none while the person decides: their time is not the run's
		timer := time.NewTimer(time.Until(at))
		defer timer.Stop()
		deadline = timer.C
	}
	select {
	case in := <-rn.ctl.inputs:
		return rn.step(in)
	case req := <-rn.ctl.requests:
		return rn.handleQueue(req)
	case <-rn.ctl.cancel:
		// Answers that already arrived are real: apply them before cancelling.
		for drained := false; !drained; {
			select {
			case in := <-rn.ctl.inputs:
				effects := rn.step(in)
				if rn.state.Phase == core.PhaseDone {
					return effects
				}
				if more := rn.execute(effects); len(more) > 0 {
					return more
				}
			default:
				drained = true
			}
		}
		return rn.step(rn.cancelInput())
	case <-deadline:
		return rn.step(core.Ticked{Now: rn.now()})
	}
}

// step feeds one input to the core. When the core ends the run, outstanding work is stopped
// first, so nothing still runs once its call has been answered "cancelled".
func (rn *run) step(in core.Input) []core.Effect {
	rn.tell()
	next, effects, err := core.Next(rn.state, in)
	if err != nil {
		// Only a runner bug gets here; end the run rather than spin.
		rn.r.log.Error("loop core refused an input", "session", rn.spec.SessionID, "run", rn.id, "err", err)
		next, effects, err = core.Next(rn.state, core.Failed{Now: rn.now(), Err: err.Error()})
		if err != nil {
			rn.r.log.Error("loop core refused failure", "err", err)
			return nil
		}
	}
	rn.state = next
	rn.relayWaiting()
	if next.Phase == core.PhaseDone {
		rn.stopWork()
	}
	return effects
}

// tell feeds the core, as Stored, the rows stored since it last heard: its own Persist effects
// and the rows the runner wrote itself (hook runs, notes), so its compaction cuts see them.
func (rn *run) tell() {
	if rn.state.Phase == core.PhaseIdle || rn.state.Phase == core.PhaseDone {
		return
	}
	refs, err := rn.journal.Unheard()
	if err == nil && len(refs) > 0 {
		var next core.State
		if next, _, err = core.Next(rn.state, core.Stored{Rows: refs}); err == nil {
			rn.state = next
		}
	}
	if err != nil {
		rn.r.log.Error("tell the loop core of stored rows", "session", rn.spec.SessionID, "run", rn.id, "err", err)
	}
}

func (rn *run) stopWork() {
	rn.ctl.opStop()
	rn.ctl.work.Wait()
}

// execute carries out effects in order, every one of them: a stop an extension asks for
// reaches the core as an input (an answer's HookStop, or CancelRequested), so no effect the
// core emitted is ever left undone. If one fails, the run is ended with Failed and the
// effects of that are returned for the caller to execute.
func (rn *run) execute(effects []core.Effect) []core.Effect {
	rn.journal.Batch(effects)
	for _, e := range effects {
		var err error
		switch e := e.(type) {
		case core.Persist:
			if !rn.journal.Defer(e.Rows) {
				err = rn.persist(e.Rows)
			}
		case core.Emit:
			if !rn.journal.Hold(e.Payload) {
				rn.publish(e.Payload)
			}
		case core.Done:
			rn.end.result = e.Result
		default:
			err = rn.startWork(e)
		}
		if err != nil && rn.state.Phase != core.PhaseDone {
			rn.r.log.Error("run failed", "session", rn.spec.SessionID, "run", rn.id, "err", err)
			return rn.step(rn.failed(err))
		} else if err != nil {
			// Already stopping: FinishRun answers any call left without a result.
			rn.r.log.Error("write while stopping failed", "session", rn.spec.SessionID, "run", rn.id, "err", err)
		}
	}
	return nil
}

// startWork starts the worker of an effect that waits for an answer: a model call, approvals,
// tools, a compaction or a hook. A model call and a compaction first write the rows they
// read.
func (rn *run) startWork(e core.Effect) error {
	switch e := e.(type) {
	case core.CallModel:
		if err := rn.flushDeferred(); err != nil {
			return err
		}
		rows := rn.journal.Rows()
		rn.goWork(func() { rn.callModel(e, rows) })
	case core.RequestApproval:
		rn.requestApprovals(e)
	case core.RunTools:
		batches := e.Batches
		if e.Child != nil {
			rn.tools.share = *e.Child // read by the task calls' workers, started below
		}
		rn.goWork(func() { rn.runTools(batches) })
	case core.Compact:
		if err := rn.flushDeferred(); err != nil {
			return err
		}
		rows := rn.journal.Rows()
		rn.goWork(func() { rn.compact(e, rows) })
	case core.FireHook:
		info := rn.info() // read on the owner goroutine: the rows are its
		rn.goWork(func() { rn.fireHook(e, info) })
	}
	return nil
}

// goWork starts a worker that ends when op is cancelled.
func (rn *run) goWork(f func()) {
	rn.ctl.work.Add(1)
	go func() {
		defer rn.ctl.work.Done()
		f()
	}()
}

// send hands an answer to the owner, or drops it when the work was cancelled.
func (rn *run) send(in core.Input) {
	select {
	case rn.ctl.inputs <- in:
	case <-rn.ctl.op.Done():
	}
}

func (rn *run) publish(p core.Payload) {
	ctx, cancel := context.WithTimeout(rn.r.base, rn.r.cfg.PersistTimeout)
	defer cancel()
	ev := bus.Event{SessionID: rn.spec.SessionID, RunID: rn.id, Payload: p}
	if c := rn.spec.Child; c != nil {
		ev.ParentCallID, ev.ParentSessionID = c.CallID, c.Session
	}
	if _, err := rn.r.bus.Publish(ctx, ev); err != nil {
		rn.r.log.Warn("event not delivered to every subscriber", "err", err)
	}
}

// flushDeferred writes the deferred rows, and the run's row if it is not written yet, on
// their own; a no-op when there are none.
func (rn *run) flushDeferred() error {
	ctx, cancel := rn.writeCtx()
	defer cancel()
	added, err := rn.journal.Flush(ctx)
	return rn.stored(ctx, added, err)
}

// persist writes the deferred rows and then rows in one transaction (journal.Commit).
func (rn *run) persist(rows []core.Row) error {
	ctx, cancel := rn.writeCtx()
	defer cancel()
	added, err := rn.journal.Commit(ctx, rows)
	return rn.stored(ctx, added, err)
}

// stored announces rows just written; a call's changes not recorded stop the run too.
func (rn *run) stored(ctx context.Context, added []store.Chunk, err error) error {
	if aerr := rn.announce(ctx, added); err == nil {
		err = aerr
	}
	return err
}

// finish stores the result, publishes run_finished and lets go of the session.
func (rn *run) finish() {
	rn.stopWork()
	res := rn.end.result
	if res.Status == "" { // the loop ended without Done: only a refused Failed gets here
		res = core.Result{Status: core.StopError, Error: "run ended without a result", SessionID: rn.spec.SessionID, RunID: rn.id,
			StartedAt: rn.state.StartedAt, EndedAt: rn.now()}
	}
	ctx, cancel := rn.writeCtx()
	defer cancel()
	stored, synthesized, err := rn.storeEnd(ctx, &res) // with the rows still held, in one commit
	if err == nil {
		// What run_finished reports is what the journal holds: the sum of the run's rows.
		res.Counters = stored.Counters
	}
	if err != nil {
		rn.r.log.Error("store run result", "session", rn.spec.SessionID, "run", rn.id, "err", err)
		res = rn.lostEnd(res, false, err)
	}
	if aerr := rn.announce(ctx, synthesized); aerr != nil {
		rn.r.log.Error("record what the run's cancelled calls changed", "session", rn.spec.SessionID, "run", rn.id, "err", aerr)
	}
	rn.caps.Abort()
	for _, c := range synthesized {
		var p core.ToolFinishedPayload
		if json.Unmarshal(c.Payload, &p) == nil {
			rn.publish(p)
		}
	}
	rn.end.result = res
	meters := rn.state.Meters()
	leftover := rn.state.Queued()
	rn.journal.Close()
	rn.tools.specs, rn.state = nil, core.State{Phase: core.PhaseDone} // only the result is kept
	rn.r.mu.Lock()
	rn.end.finishing = true
	rn.r.mu.Unlock()
	rn.publish(core.RunFinishedPayload{Result: res, Meters: meters})
	rn.ws.Release()
	rn.r.mu.Lock()
	delete(rn.r.bySession, rn.spec.SessionID)
	rn.r.mu.Unlock()
	// Only a run that completed goes on by itself: Stop stops, and a bound the person set is
	// never bypassed by a fresh run with fresh budgets. Undelivered messages stay queued (in
	// the store) for the person to send or remove. The next run is recorded before this one
	// is done, so whoever waits on this run sees the whole outcome.
	if len(leftover) > 0 && res.Status == core.StopCompleted {
		rn.r.startNext(rn.spec)
	}
	close(rn.end.done)
}
