package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The task tool: a call that starts a child session. The child is an ordinary session (its
// own rows, runs and events), linked to the call by parent_id and parent_call_id, run by the
// same Runner in the parent's folder under the parent's approval mode, sandbox, plan mode,
// model and provider. Its final answer (or its status and reason) is the call's result, fed
// like any tool's, so the call stays pending in the parent's journal until the child's run is
// stored; Stop on the parent stops the child (the call's worker cancels it when the parent's
// work is cancelled, and waits for it to be stored). After a kill, store.Repair answers the
// parent's call "interrupted" naming the child.

// TaskTool is the name of the tool that starts a child session.
const TaskTool = "task"

// TaskConfig turns the task tool on (Config.Tasks).
type TaskConfig struct {
	// MaxParallel is how many children one run may have going at once; 0: 4. Task calls of
	// one turn all start together (they are read-only); the rest wait for a free slot.
	MaxParallel int
	// Agents returns the valid agent definitions of a folder (agents.Valid(agents.Definitions
	// ...)), read when a run starts; nil: none, and a task call naming an agent is refused.
	Agents func(root string) []agents.Definition
}

// ChildStore is the part of the store a task call needs besides Store; Config.Store must
// implement it for the task tool to be offered.
type ChildStore interface {
	CreateSession(ctx context.Context, n store.NewSession) (store.Session, error)
}

// TaskArgs are a task call's arguments.
type TaskArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent,omitempty"`
}

const taskDescription = "Start a child session: another agent works on a self-contained task in the same folder, " +
	"under the same approval rules, and its final answer comes back as this call's result. The child does not " +
	"see this conversation: put everything it needs in prompt. Several task calls in one turn run in parallel. " +
	"Use it for independent pieces of work (searching a large codebase, a separate change) whose details you do " +
	"not need in this conversation."

var taskParameters = json.RawMessage(`{"type":"object","properties":{` +
	`"description":{"type":"string","description":"A short (3-5 words) label for the task, shown to the person"},` +
	`"prompt":{"type":"string","description":"The complete task for the child: what to do, what to return"},` +
	`"agent":{"type":"string","description":"The agent to run it (optional; without it the child works like you)"}},` +
	`"required":["description","prompt"],"additionalProperties":false}`)

// taskSpec is the task tool as the model sees it.
func taskSpec() tools.Spec {
	return tools.Spec{Name: TaskTool, Description: taskDescription, Parameters: taskParameters, ReadOnly: true}
}

// offerTasks adds the task tool to the run's tools when the runner has it turned on and the
// store can hold children. Whether this run may start children is the core's to say
// (core.MaxTaskDepth, Started.Depth and TaskGranted): keepTools drops the tool when not.
func (rn *run) offerTasks() {
	cfg := rn.r.cfg.Tasks
	if _, ok := rn.r.cfg.Store.(ChildStore); !ok || cfg == nil {
		return
	}
	if _, taken := rn.tools.infos[TaskTool]; taken {
		return // a tool of that name already exists (an MCP server's): it keeps the name
	}
	n := cfg.MaxParallel
	if n <= 0 {
		n = 4
	}
	rn.tools.taskSlots = make(chan struct{}, n)
	if cfg.Agents != nil {
		rn.tools.agents = cfg.Agents(rn.root)
	}
	spec := taskSpec()
	spec.Description += agentList(rn.tools.agents)
	rn.tools.specs = append(rn.tools.specs, spec)
	rn.tools.infos[TaskTool] = core.ToolInfo{Name: TaskTool, ReadOnly: true, Kind: core.ToolTask}
}

// taskGranted says whether the run's agent lists the task tool (Started.TaskGranted).
func (s RunSpec) taskGranted() bool {
	return s.agent != nil && s.agent.Tools != nil && s.agent.Allows(TaskTool)
}

// keepTools drops the tools the core does not keep (State.HasTool: the task tool of a run
// that may not start children), so the runner neither offers nor runs them. It runs on the
// owner goroutine right after Started, before any worker reads the tools.
func (rn *run) keepTools() {
	rn.tools.specs = slices.DeleteFunc(rn.tools.specs, func(s tools.Spec) bool { return !rn.state.HasTool(s.Name) })
	maps.DeleteFunc(rn.tools.infos, func(name string, _ core.ToolInfo) bool { return !rn.state.HasTool(name) })
}

// agentList is the part of the task tool's description naming the agents (fixed for the
// run, so the tools part of every request stays the same).
func agentList(defs []agents.Definition) string {
	if len(defs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nAgents you can name in agent:")
	for _, d := range defs {
		fmt.Fprintf(&b, "\n- %s: %s", d.Name, d.Description)
	}
	return b.String()
}

// narrowTools marks the tools the run's agent does not allow (a definition narrows, never
// widens): the core never offers them and refuses their calls. The task tool is offered
// afterwards by offerTasks.
func (rn *run) narrowTools() {
	a := rn.spec.agent
	if a == nil || a.Tools == nil {
		return
	}
	for _, s := range rn.tools.specs {
		if !a.Allows(s.Name) {
			t := rn.tools.infos[s.Name]
			t.Kind = core.ToolNarrowed
			rn.tools.infos[s.Name] = t
		}
	}
}

// agentName names the agent the run works as ("" for none).
func (s RunSpec) agentName() string {
	if s.agent == nil {
		return ""
	}
	return s.agent.Name
}

// findAgent returns the run's agent named name.
func (rn *run) findAgent(name string) (*agents.Definition, error) {
	var names []string
	for i := range rn.tools.agents {
		if rn.tools.agents[i].Name == name {
			return &rn.tools.agents[i], nil
		}
		names = append(names, rn.tools.agents[i].Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("unknown agent %q: no agents are defined; leave agent empty", name)
	}
	return nil, fmt.Errorf("unknown agent %q; the agents are: %s", name, strings.Join(names, ", "))
}

// parseTaskArgs checks a task call's arguments; its error goes back to the model.
func parseTaskArgs(raw string) (TaskArgs, error) {
	var a TaskArgs
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
