package loop

import (
	"sync"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Workers: each runs on its own goroutine under rn.ctl.op and reports through rn.send.

func (rn *run) callModel(e core.CallModel, rows []store.Chunk) {
	// The session's cache: only the rows appended since the last call are decoded, and only
	// the messages that changed are encoded (provider.Cache).
	rc := rn.r.requests.Take(rn.spec.SessionID)
	msgs, err := rc.Turns(rows)
	if err != nil {
		rn.send(core.Failed{Now: rn.now(), Err: err.Error()})
		return
	}
	h := provider.Handler{
		OnText:      func(d string) { rn.publish(core.TextDelta(d)) },
		OnReasoning: func(d string) { rn.publish(core.ReasoningDelta(d)) },
		OnRetry: func(r provider.Retry) {
			rn.publish(core.ModelRetryingPayload{Attempt: r.Attempt, Of: r.Of, WaitMS: r.Wait.Milliseconds(), Cause: r.Cause(), Error: r.Err.Error()})
		},
	}
	resp := rn.ports.Model.Stream(rn.ctl.op, provider.Request{Model: rn.spec.Model, System: rn.guide.system, Messages: msgs, Tools: rn.toolSpecs(),
		MaxTokens: rn.spec.MaxTokens, ThinkingBudget: rn.spec.ThinkingBudget, Cache: &rc.Enc}, h)
	if resp.Err != nil && rn.ctl.op.Err() != nil {
		// Stopped: what had streamed goes to the core with the cancel (cancelInput), which
		// decides what of it to keep. The owner reads it once this worker has returned.
		cut := resp.Core(rn.spec.origin)
		rn.ctl.cut = &cut
		return
	}
	out := resp.Core(rn.spec.origin)
	if out.Status == core.ResponseImageRefused && rn.spec.Vision.TextOnly(rn.spec.Model) == "" {
		// What the refused request carried; the core picks the images to blame.
		if out.ImagesSent, err = store.SentImagesOf(rows); err != nil {
			rn.r.log.Warn("read the images a refused request sent", "session", rn.spec.SessionID, "err", err)
		}
	}
	rn.send(core.ModelResponded{Now: rn.now(), Response: out})
}

// toolSpecs are the tools the run offers the model (core.Offers): the same for every request
// of the run, so the prompt prefix servers cache stays put.
func (rn *run) toolSpecs() []provider.ToolSpec {
	specs := make([]provider.ToolSpec, 0, len(rn.tools.specs))
	runMode := string(rn.spec.RunMode()) // plan or execute
	for _, s := range rn.tools.specs {
		if core.Offers(runMode, rn.tools.infos[s.Name]) {
			specs = append(specs, provider.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
		}
	}
	return specs
}

// requestApprovals asks about every call at once, each under the mode the core chose for it;
// the answers come back as they are made. The core has already decided the calls it decides
// itself (unknown tools, tools narrowed away, plan mode).
func (rn *run) requestApprovals(e core.RequestApproval) {
	for _, c := range e.Calls {
		rn.goWork(func() {
			d, err := rn.ports.Approver.Request(rn.ctl.op, tools.Request{SessionID: rn.spec.SessionID, Workspace: rn.root,
				Mode: tools.Mode(e.Mode(c.ID, string(rn.spec.Mode.OrDefault()))), Call: c, ReadOnly: rn.tools.infos[c.Name].ReadOnly,
				Sandboxed: rn.spec.Sandbox.Sandboxed(c), OnPending: func(p tools.Pending) { rn.publish(p.View()) }})
			if err != nil {
				if rn.ctl.op.Err() != nil {
					return
				}
				// Fail closed: a policy that cannot be evaluated denies.
				d = tools.Decision{Approved: false, By: "error", Reason: err.Error()}
			}
			args := ""
			if d.Approved && d.Arguments != c.Arguments {
				args = d.Arguments
			}
			rn.send(core.ApprovalDecided{Now: rn.now(), CallID: c.ID, Approved: d.Approved, By: d.By, Reason: d.Reason, Rule: d.Rule,
				Arguments: args, Reviewed: d.Reviewed, HookStop: d.HookStop})
		})
	}
}

// runTools runs the batches the core chose one after the other, the calls of a batch in
// parallel.
func (rn *run) runTools(batches [][]core.Call) {
	for _, batch := range batches {
		if len(batch) == 1 {
			rn.runTool(batch[0]) // most turns make one call: no goroutine to start and wait for
		} else {
			var wg sync.WaitGroup
			for _, c := range batch {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rn.runTool(c)
				}()
			}
			wg.Wait()
		}
		if rn.ctl.op.Err() != nil {
			return
		}
	}
}

// runTool runs one call through the run's tool port (a task call too: taskTools).
func (rn *run) runTool(c core.Call) {
	note, err := rn.capture(c)
	if err != nil {
		rn.send(rn.failed(err)) // its before-record could not be stored: the call never runs
		return
	}
	rn.tools.live.Add(RunningCall{CallID: c.ID, Name: c.Name, StartedAt: rn.now()})
	defer rn.tools.live.Remove(c.ID)
	rn.publish(core.ToolStartedPayload{CallID: c.ID, Name: c.Name})
	res := rn.ports.Tools.Run(rn.ctl.op, rn.ws, c, func(s string) {
		rn.publish(core.ToolOutputPayload{CallID: c.ID, Text: s})
	})
	if rn.ctl.op.Err() != nil {
		return // the core has answered this call "cancelled"
	}
	rn.send(core.ToolFinished{Now: rn.now(), CallID: c.ID, Content: res.Content + note, IsError: res.IsError, Sandboxed: res.Meta.Sandboxed,
		Child: res.Meta.Child, HookStop: res.Meta.HookStop})
}

// compact summarises the rows up to the cut with one model call (no tools).
func (rn *run) compact(e core.Compact, chunks []store.Chunk) {
	fail := func(msg string) { rn.send(core.Compacted{Now: rn.now(), OK: false, Err: msg}) }
	msgs, tail, err := store.SummaryRequest(chunks, e.ThroughSeq)
	if err != nil {
		fail(err.Error())
		return
	}
	// The same tools as every turn: they are part of the prompt prefix servers cache, and some
	// servers refuse tool messages in a request that offers no tools.
	// And the same thinking budget: Anthropic drops cached message prefixes when it changes.
	resp := rn.ports.Model.Stream(rn.ctl.op, provider.Request{Model: rn.spec.Model, System: rn.guide.system, Messages: msgs, Tools: rn.toolSpecs(),
		ThinkingBudget: rn.spec.ThinkingBudget}, provider.Handler{})
	if rn.ctl.op.Err() != nil {
		return
	}
	usage := resp.Usage.Core()
	if resp.Status != provider.StatusOK || resp.Text == "" {
		msg := "the summary call failed"
		if resp.Err != nil {
			msg += ": " + resp.Err.Error()
		}
		rn.send(core.Compacted{Now: rn.now(), OK: false, Err: msg, Called: true, Usage: usage})
		return
	}
	est, err := store.EstimateContext(tail, rn.guide.system)
	if err != nil {
		fail(err.Error())
		return
	}
	est += core.EstimateMessage(resp.Text)
	rn.send(core.Compacted{Now: rn.now(), OK: true, Summary: resp.Text, ContextTokens: est, Called: true, Usage: usage})
}
