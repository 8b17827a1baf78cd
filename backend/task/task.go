// Package task is the task tool as the model and the person see it: its spec (with the
// agents a call may name), its arguments, what a child's run is given, and the answer the
// parent's model reads; and its Driver (loop.Children), to which the runner hands each call:
// it creates the child session, starts the child's run beside its parent's, waits for it to
// be stored and adds up what it spent.
//
// The child is an ordinary session (its own rows, runs and events), linked to the call by
// parent_id and parent_call_id, run in the parent's folder under the parent's approval mode,
// sandbox, plan mode, model and provider. Its final answer (or its status and reason) is the
// call's result, fed like any tool's, so the call stays pending in the parent's journal until
// the child's run is stored; Stop on the parent stops the child. After a kill, store.Repair
// answers the parent's call "interrupted" naming the child.
package task

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Tool is the name of the tool that starts a child session.
const Tool = "task"

// Config is the task tool's configuration (NewDriver).
type Config struct {
	// MaxParallel is how many children one run may have going at once; 0: 4. Task calls of
	// one turn all start together (they are read-only); the rest wait for a free slot.
	MaxParallel int
	// Agents returns the valid agent definitions of a folder (agents.Valid(agents.Definitions
	// ...)), read when a run starts; nil: none, and a task call naming an agent is refused.
	Agents func(root string) []agents.Definition
}

// Slots is how many children one run may have going at once.
func (c Config) Slots() int {
	if c.MaxParallel <= 0 {
		return 4
	}
	return c.MaxParallel
}

// Store is the part of the store a task call needs besides the runner's; the runner's store
// must implement it for the task tool to be offered.
type Store interface {
	CreateSession(ctx context.Context, n store.NewSession) (store.Session, error)
}

// Args are a task call's arguments.
type Args struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent,omitempty"`
}

const description = "Start a child session: another agent works on a self-contained task in the same folder, " +
	"under the same approval rules, and its final answer comes back as this call's result. The child does not " +
	"see this conversation: put everything it needs in prompt. Several task calls in one turn run in parallel. " +
	"Use it for independent pieces of work (searching a large codebase, a separate change) whose details you do " +
	"not need in this conversation."

var parameters = json.RawMessage(`{"type":"object","properties":{` +
	`"description":{"type":"string","description":"A short (3-5 words) label for the task, shown to the person"},` +
	`"prompt":{"type":"string","description":"The complete task for the child: what to do, what to return"},` +
	`"agent":{"type":"string","description":"The agent to run it (optional; without it the child works like you)"}},` +
	`"required":["description","prompt"],"additionalProperties":false}`)

// Spec is the task tool as the model sees it, naming the agents a call may choose (fixed for
// the run, so the tools part of every request stays the same).
func Spec(defs []agents.Definition) tools.Spec {
	var b strings.Builder
	b.WriteString(description)
	if len(defs) > 0 {
		b.WriteString("\n\nAgents you can name in agent:")
	}
	for _, d := range defs {
		fmt.Fprintf(&b, "\n- %s: %s", d.Name, d.Description)
	}
	return tools.Spec{Name: Tool, Description: b.String(), Parameters: parameters, ReadOnly: true}
}

// ParseArgs checks a task call's arguments; its error goes back to the model.
func ParseArgs(raw string) (Args, error) {
	var a Args
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("invalid arguments for task: %v (want {\"description\": string, \"prompt\": string, \"agent\": string})", err)
	}
	if strings.TrimSpace(a.Description) == "" || strings.TrimSpace(a.Prompt) == "" {
		return a, fmt.Errorf("invalid arguments for task: description and prompt must not be empty")
	}
	return a, nil
}

// Find returns the agent of defs named name; its error, naming the agents there are, goes
// back to the model.
func Find(defs []agents.Definition, name string) (*agents.Definition, error) {
	var names []string
	for i := range defs {
		if defs[i].Name == name {
			return &defs[i], nil
		}
		names = append(names, defs[i].Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("unknown agent %q: no agents are defined; leave agent empty", name)
	}
	return nil, fmt.Errorf("unknown agent %q; the agents are: %s", name, strings.Join(names, ", "))
}

// Child is what a child's run is given of its parent's: its model, system prompt and
// budgets (the parent's share for the child, core.Limits.Share).
type Child struct {
	Model, System string
	Limits        core.Limits
}

// As is the child's run under agent (nil: the parent's prompt and tools): the agent's
// prompt, its model when it names one (then priced from the table by that model), and its
// turn bound.
func (c Child) As(agent *agents.Definition) Child {
	if agent == nil {
		return c
	}
	c.System = agent.Prompt
	if agent.Model != "" && agent.Model != agents.Inherit {
		c.Model, c.Limits.Price = agent.Model, core.Price{}
	}
	c.Limits = c.Limits.CapTurns(agent.MaxTurns)
	return c
}

// Result is what the parent's model reads: the child's answer when it completed, else its
// status, the reason and whatever it had answered so far.
func Result(child string, res core.Result) tools.Result {
	if res.Status == core.StopCompleted {
		if strings.TrimSpace(res.Output) == "" {
			return tools.Result{Content: fmt.Sprintf("the child session %s completed without an answer", child)}
		}
		return tools.Result{Content: res.Output}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the child session %s stopped: %s", child, res.Status)
	if res.Error != "" {
		fmt.Fprintf(&b, " (%s)", res.Error)
	}
	if strings.TrimSpace(res.Output) != "" {
		fmt.Fprintf(&b, "\nits answer so far:\n%s", res.Output)
	}
	return tools.Result{Content: b.String(), IsError: true}
}
