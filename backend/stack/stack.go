// Package stack builds the one agent stack the window and the CLI share: the store, the
// tool registry, the workspaces, the approver and the runner, wired once, in dependency
// order, with nothing closing over a value that does not exist yet.
//
// The approval path has no cycle: the runner asks the approver with a request that carries
// its own OnPending notification, so the runner publishes approval_requested itself.
package stack

import (
	"context"
	"fmt"
	"github.com/loopdesk/loopdesk/backend/agents"
	"log/slog"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Config is what differs between the window and the CLI.
type Config struct {
	DB *store.DB
	// Models gives each run the client of its provider (Models); without it every run uses
	// Model. One of the two is required.
	Models loop.Models
	Model  loop.Model
	Prices loop.PriceTable
	// MCP, when not nil, offers its servers' tools after the built-in ones; each run gets
	// the tools of the servers that are ready when it starts.
	MCP *mcp.Manager
	// Checkpoints, when not nil, records what each call that may change files changed.
	Checkpoints *checkpoint.Recorder
	Logger      *slog.Logger
	// InstructionsDir holds the person's own AGENTS.md (config.ConfigDir()); "" for none.
	InstructionsDir string
	// Hooks fires the person's hooks; nil: an engine reading the personal hooks.json from
	// InstructionsDir. New sets its Trust and Rows to DB, so project hooks run only while
	// trusted in this database.
	Hooks *hooks.Engine
	// Respec completes each run's spec as it starts (loop.Config.Respec); nil for none.
	Respec func(ctx context.Context, spec *loop.RunSpec) error
	// Tasks configures the task tool (child sessions); nil: on, with the runner's defaults.
	Tasks *loop.TaskConfig
	// NoTasks leaves the task tool out: for a front end that cannot yet ask the person about a
	// child's calls (ACP asks its editor about the prompt's own session only).
	NoTasks bool
}

// Stack is the wired agent. Close stops every run and the MCP servers; the caller closes
// the database.
type Stack struct {
	DB          *store.DB
	Tools       *Tools
	Workspaces  *tools.Manager
	Approver    *tools.Approver
	Runner      *loop.Runner
	MCP         *mcp.Manager         // nil without MCP
	Checkpoints *checkpoint.Recorder // nil without checkpoints
	Hooks       *hooks.Engine
}

// New wires a Stack. It does no I/O.
func New(cfg Config) (*Stack, error) {
	if cfg.DB == nil || (cfg.Model == nil && cfg.Models == nil) {
		return nil, fmt.Errorf("build the agent stack: a database and a model are required")
	}
	// load_skill reads the skills of each run's folder and of the person's own (backend/agents).
	ts := &Tools{mcp: cfg.MCP, log: cfg.Logger, more: []tools.Tool{agents.LoadSkill{PersonalDir: cfg.InstructionsDir}}}
	if ts.log == nil {
		ts.log = slog.Default()
	}
	var err error
	if ts.builtins, err = tools.NewRegistry(append(builtinTools(), ts.more...)...); err != nil {
		return nil, fmt.Errorf("build the agent stack: %w", err)
	}
	s := &Stack{DB: cfg.DB, Tools: ts, Workspaces: tools.NewManager(), Approver: tools.NewApprover(Rules{DB: cfg.DB}),
		MCP: cfg.MCP, Checkpoints: cfg.Checkpoints}
	lc := loop.Config{Store: cfg.DB, Models: cfg.Models, Model: cfg.Model, Approver: s.Approver, Tools: ts,
		Workspaces: s.Workspaces, Prices: cfg.Prices, Logger: cfg.Logger, InstructionsDir: cfg.InstructionsDir,
		Respec: cfg.Respec, Skills: agents.Catalog{PersonalDir: cfg.InstructionsDir}}
	tasks := loop.TaskConfig{}
	if cfg.Tasks != nil {
		tasks = *cfg.Tasks // the caller's config is not changed
	}
	lc.Tasks = &tasks
	if cfg.NoTasks {
		lc.Tasks = nil
	} else if tasks.Agents == nil {
		// The folder's definitions and the person's own (beside their AGENTS.md), read as
		// each run starts.
		personal := cfg.InstructionsDir
		lc.Tasks.Agents = func(root string) []agents.Definition { return agents.Valid(agents.Definitions(personal, root)) }
	}
	if cfg.Checkpoints != nil {
		lc.Checkpoints = cfg.Checkpoints
	}
	s.Hooks = cfg.Hooks
	if s.Hooks == nil {
		s.Hooks = &hooks.Engine{PersonalDir: cfg.InstructionsDir}
	}
	s.Hooks.Trust, s.Hooks.Rows, s.Hooks.Logger = cfg.DB, cfg.DB, cfg.Logger
	lc.Hooks = s.Hooks
	s.Runner = loop.New(lc)
	return s, nil
}

// Close cancels every run, waits until their rows are written, and stops the MCP servers.
func (s *Stack) Close() {
	s.Runner.Close()
	if s.MCP != nil {
		_ = s.MCP.Close() // the servers are gone either way; their log says why
	}
}

// builtinTools are the tools every run has: the built-in ones and update_plan (the plan the
// window pins above the message box).
func builtinTools() []tools.Tool { return append(tools.Builtins(), tools.UpdatePlan{}) }

// Tools is the tool set runs use: the built-in tools plus the tools of the MCP servers that
// are ready. It implements loop.ToolSet: a run keeps the set it started with.
type Tools struct {
	builtins *tools.Registry // the built-in tools and more
	more     []tools.Tool    // Loopdesk's own tools beside the built-in ones (load_skill)
	mcp      *mcp.Manager
	log      *slog.Logger
}

var _ loop.ToolSet = (*Tools)(nil)

// ForRun is the registry of the tools available now.
func (t *Tools) ForRun() loop.ToolRunner {
	if t.mcp == nil {
		return t.builtins
	}
	reg, err := tools.NewRegistry(append(append(builtinTools(), t.more...), t.mcp.Tools()...)...)
	if err != nil {
		// The manager hands out unique names and schemas it has compiled; if that ever fails,
		// the run goes on with the built-in tools rather than none.
		t.log.Error("MCP tools left out of this run", "err", err)
		return t.builtins
	}
	return reg
}

var _ loop.Settler = (*Tools)(nil)

// Settle waits until every configured MCP server is ready, failed or disabled (at most about
// the manager's start bound, 10 s) or ctx ends, and names the servers a run started now
// lacks: failed ones and ones still not ready, each with why.
func (t *Tools) Settle(ctx context.Context) []string {
	if t.mcp == nil {
		return nil
	}
	_ = t.mcp.WaitSettled(ctx) // ctx ended: the run was cancelled, or the wait is over; say what is missing
	var out []string
	for _, s := range t.mcp.Statuses() {
		switch s.State {
		case mcp.StateReady, mcp.StateDisabled:
		default:
			why := s.Reason
			if why == "" {
				why = string(s.State)
			}
			out = append(out, s.Name+": "+why)
		}
	}
	return out
}

// Specs lists the tools available now.
func (t *Tools) Specs() []tools.Spec { return t.ForRun().Specs() }

// Run runs one call against the tools available now (runs use ForRun instead).
func (t *Tools) Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result {
	return t.ForRun().Run(ctx, ws, call, out)
}

// Rules lets the approval policy read the rules kept in the store: the one adapter between
// store.Rule (the row) and tools.Rule (what the policy evaluates).
type Rules struct{ DB *store.DB }

var _ tools.RuleSource = Rules{}

// ListRules implements tools.RuleSource. A child session (started by a task call) is under
// its parent's session rules as well as its own: the parent's rules are the child's rules.
func (r Rules) ListRules(ctx context.Context, sessionID, workspace string) ([]tools.Rule, error) {
	rs, err := r.DB.ListRules(ctx, sessionID, workspace)
	if err != nil {
		return nil, err
	}
	for id := sessionID; id != ""; {
		s, err := r.DB.GetSession(ctx, id)
		if err != nil || s.ParentCallID == "" {
			break // not a child (or gone): no more rules to inherit
		}
		id = s.ParentID
		parent, err := r.DB.ListRules(ctx, id, workspace)
		if err != nil {
			return nil, err
		}
		for _, x := range parent {
			if x.Scope == store.ScopeSession {
				rs = append(rs, x) // the workspace's rules are in rs already
			}
		}
	}
	out := make([]tools.Rule, len(rs))
	for i, x := range rs {
		out[i] = tools.Rule{ID: x.ID, Tool: x.Tool, Pattern: x.Pattern, Effect: tools.Effect(x.Effect),
			Scope: tools.Scope(x.Scope), ScopeID: x.ScopeID}
	}
	return out, nil
}
