package task

import (
	"context"
	"fmt"
	"sync"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Driver carries out task calls for the runner (loop.Children, wired in stack.New): a call
// starts a child session, run by the parent's Runner beside its parent's run. The call's
// worker waits for the child's run to be stored; when the parent's work is cancelled (Stop, a
// bound, Close) it stops the child and still waits for it, so the child is never left running
// without a parent. Whether a run may start children, and each child's budgets, are the
// core's (core.MaxTaskDepth, Started.TaskGranted, RunTools.Child): the driver only carries
// them out.
type Driver struct {
	cfg   Config
	store Store

	mu sync.Mutex
	// nested is, for each child run whose parent has not read it yet, what that run's own
	// children spent: a parent's call adds its child's whole spend, grandchildren included.
	nested map[string]core.ChildSpend
}

var _ loop.Children = (*Driver)(nil)

// NewDriver is the task tool under cfg, its children's sessions created in s.
func NewDriver(cfg Config, s Store) *Driver {
	return &Driver{cfg: cfg, store: s, nested: map[string]core.ChildSpend{}}
}

// ForRun implements loop.Children: the agents a call may name and the slots for children
// going at once are fixed for the run.
func (d *Driver) ForRun(root string) loop.TaskTool {
	t := &runTool{d: d, slots: make(chan struct{}, d.cfg.Slots())}
	if d.cfg.Agents != nil {
		t.agents = d.cfg.Agents(root)
	}
	return t
}

// runTool is the task tool of one run.
type runTool struct {
	d      *Driver
	agents []agents.Definition
	slots  chan struct{} // bounds the children going at once
}

func (t *runTool) Spec() tools.Spec { return Spec(t.agents) }

// Run carries out one task call on the parent's worker goroutine: it waits for a free slot,
// creates the child session, starts its run and waits for the run to be stored. The result's
// Meta.Child is what the child (with its own children) spent.
func (t *runTool) Run(ctx context.Context, p loop.Parent, c core.Call, out func(string)) tools.Result {
	fail := func(msg string) tools.Result { return tools.Result{Content: msg, IsError: true} }
	args, err := ParseArgs(c.Arguments)
	if err != nil {
		return fail(err.Error())
	}
	var agent *agents.Definition // without one, a child works like its parent: never wider
	if p.Spec.Child != nil {
		agent = p.Spec.Child.Agent
	}
	if args.Agent != "" {
		if agent, err = Find(t.agents, args.Agent); err != nil {
			return fail(err.Error())
		}
	}
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-ctx.Done():
		return fail("cancelled before the child session started")
	}
	child, runID, err := t.d.start(ctx, p, c, args, agent)
	if err != nil {
		return fail("the child session could not start: " + err.Error())
	}
	out(fmt.Sprintf("started child session %s (run %s)\n", child, runID))
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			p.Runner.Cancel(child) // Stop on the parent stops its children
		case <-stopped:
		}
	}()
	// Not bounded by ctx: the child always ends (a cancel ends it within its persist timeout),
	// and its result must be stored before the parent's call is answered.
	res, err := p.Runner.Wait(context.WithoutCancel(ctx), runID)
	close(stopped)
	spent := t.d.take(runID).Plus(res.Counters)
	if err != nil {
		return fail(fmt.Sprintf("the child session %s: %v", child, err))
	}
	if p.Spec.Child != nil {
		t.d.add(p.RunID, spent) // for the parent's own parent
	}
	r := Result(child, res)
	r.Meta.Child = &spent
	return r
}

// take is what the children of a finished run spent (their own children included), forgotten
// once read: only the run's parent reads it.
func (d *Driver) take(runID string) core.ChildSpend {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.nested[runID]
	delete(d.nested, runID)
	return s
}

// add adds a child's spend to what the children of run runID spent.
func (d *Driver) add(runID string, s core.ChildSpend) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nested[runID] = d.nested[runID].Plus(s)
}

// start creates the child session and starts its run under the parent's rules, with the
// core's share of the parent's budgets (Parent.Share).
func (d *Driver) start(ctx context.Context, p loop.Parent, c core.Call, args Args, agent *agents.Definition) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.Runner.PersistTimeout())
	defer cancel()
	limits := p.Share
	limits.Price = p.Spec.Limits.Price
	ch := Child{Model: p.Spec.Model, System: p.Spec.SystemPrompt, Limits: limits}.As(agent)
	s, err := d.store.CreateSession(ctx, store.NewSession{Title: args.Description, Workspace: p.Root,
		Model: ch.Model, Provider: p.Spec.Provider, ParentID: p.Spec.SessionID, ParentCallID: c.ID})
	if err != nil {
		return "", "", err
	}
	depth := 1
	if p.Spec.Child != nil {
		depth = p.Spec.Child.Depth + 1
	}
	spec := loop.RunSpec{SessionID: s.ID, Workspace: p.Root, Prompt: args.Prompt, Model: ch.Model, SystemPrompt: ch.System,
		Limits: ch.Limits, Mode: p.Spec.Mode, MaxTokens: p.Spec.MaxTokens, Sandbox: p.Spec.Sandbox, Plan: p.Spec.Plan,
		Provider: p.Spec.Provider, ThinkingBudget: p.Spec.ThinkingBudget,
		Child: &loop.ChildOf{Depth: depth, Session: p.Spec.SessionID, CallID: c.ID, Agent: agent,
			TaskGranted: agent != nil && agent.Tools != nil && agent.Allows(Tool),
			Waiting:     func(waiting bool) { p.Waiting(c.ID, waiting) }}}
	runID, err := p.Runner.Start(ctx, spec)
	return s.ID, runID, err
}
