package stack

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/extend"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/telemetry"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Config is what differs between the front ends. The caller opens the database (and closes
// it after Stack.Close); New builds everything else.
type Config struct {
	DB *store.DB
	// The model clients: Models; or Model, one client for every run; or, when both are nil,
	// the clients of Providers (read as each run starts, so an edit in Settings applies from
	// the next run), each adjusted by Configure (timeouts, retries; nil keeps the defaults).
	Models    loop.Models
	Model     loop.Model
	Providers func(ctx context.Context) (config.Providers, error)
	Configure func(*provider.Config)
	Prices    core.PriceTable
	// MCP, when not nil, is the servers New starts in the background (with MCPOptions) and
	// Close stops; their tools follow the built-in ones, each run getting the tools of the
	// servers ready when it starts.
	MCP        *mcp.Config
	MCPOptions mcp.Options
	// Checkpoints, when not nil, makes the recorder of what each call that may change files
	// changed (one per process and database); New links the captures a killed process left
	// open to the interrupted rows repair added (Recorder.Recover), Close stops it.
	Checkpoints *checkpoint.Options
	// Sandbox detects the sandbox (it starts bwrap twice); nil: New makes a probe and starts
	// it at once. The window passes one it starts after the page has loaded.
	Sandbox *SandboxProbe
	Logger  *slog.Logger
	// InstructionsDir holds the person's own AGENTS.md (config.ConfigDir()); "" for none.
	InstructionsDir string
	// Hooks fires the person's hooks; nil: an engine reading the personal hooks.json from
	// InstructionsDir. New sets its Trust and Rows to DB, so project hooks run only while
	// trusted in this database.
	Hooks *hooks.Engine
	// Respec completes each run's spec as it starts (loop.Config.Respec); nil for none.
	Respec func(ctx context.Context, spec *loop.RunSpec) error
	// Tasks configures the task tool (child sessions); nil: on, with the runner's defaults.
	Tasks *task.Config
	// Telemetry, when not nil, sends each run to an OpenTelemetry collector as it finishes
	// (backend/telemetry); a configuration that cannot be used is logged and left off.
	Telemetry *telemetry.Config
}

// Stack is the wired agent. Close stops every run, the MCP servers and the recorder's
// watchers; the caller closes the database.
type Stack struct {
	DB          *store.DB
	Tools       *Tools
	Workspaces  *tools.Manager
	Approver    *tools.Approver
	Runner      *loop.Runner
	MCP         *mcp.Manager         // nil without MCP
	Checkpoints *checkpoint.Recorder // nil without checkpoints
	Hooks       *hooks.Engine
	Sandbox     *SandboxProbe // what each run's shell sandbox is made from (Sandbox.Get().Shell)
	// Watches holds the one watcher of each folder, shared by the checkpoint recorder's dirty
	// set and the window's file tree.
	Watches   *tools.Watches
	telMu     sync.Mutex
	telemetry *telemetry.Live // sends finished runs to the collector; nil when off

	cfg             Config // for WithMCP
	ownsCheckpoints bool   // New made the recorder (a WithMCP stack shares its parent's)
	closed          chan struct{}
	closeOnce       sync.Once
}

// New builds a Stack: it starts detecting the sandbox (unless given a probe), opens the
// checkpoint recorder and recovers what a killed process left, and starts the MCP servers in
// the background.
// Errors: no database, no model, a recorder that cannot recover.
func New(cfg Config) (*Stack, error) {
	if cfg.DB == nil || (cfg.Model == nil && cfg.Models == nil && cfg.Providers == nil) {
		return nil, fmt.Errorf("build the agent stack: a database and a model are required")
	}
	if cfg.Model == nil && cfg.Models == nil {
		cfg.Models = Models{Providers: cfg.Providers, Configure: cfg.Configure}
	}
	if cfg.Sandbox == nil {
		cfg.Sandbox = NewSandboxProbe()
		cfg.Sandbox.Start()
	}
	watches := &tools.Watches{}
	var rec *checkpoint.Recorder
	if cfg.Checkpoints != nil {
		opts := *cfg.Checkpoints // the caller's options are not changed
		if opts.Watches == nil {
			opts.Watches = watches
		}
		watches = opts.Watches
		rec = checkpoint.New(cfg.DB, opts)
		// Link captures a killed process left open to the interrupted rows repair added.
		if _, err := rec.Recover(context.Background()); err != nil {
			_ = rec.Close()
			return nil, fmt.Errorf("build the agent stack: recover checkpoints: %w", err)
		}
	}
	s, err := wire(cfg, rec, watches, nil)
	if err != nil {
		if rec != nil {
			_ = rec.Close()
		}
		return nil, err
	}
	s.ownsCheckpoints = true
	return s, nil
}

// WithMCP builds a stack like s whose MCP manager runs servers instead of s's: ACP gives a
// session the editor passes servers for a stack of its own. It shares s's database,
// recorder, sandbox, hooks, model clients and Approver (so every call waiting in the process
// is in one list, the inbox's); closing it stops only its runs and servers.
func (s *Stack) WithMCP(servers mcp.Config) (*Stack, error) {
	cfg := s.cfg
	cfg.MCP, cfg.Hooks = &servers, s.Hooks
	return wire(cfg, s.Checkpoints, s.Watches, s.Approver)
}

// Done is closed once Close was called.
func (s *Stack) Done() <-chan struct{} { return s.closed }

// wire connects the parts; it starts the MCP servers and does no other I/O. approver is the
// one to share (nil: a new one).
func wire(cfg Config, rec *checkpoint.Recorder, watches *tools.Watches, approver *tools.Approver) (*Stack, error) {
	var manager *mcp.Manager
	if cfg.MCP != nil {
		manager = mcp.Start(*cfg.MCP, cfg.MCPOptions)
	}
	// load_skill reads the skills of each run's folder and of the person's own (backend/agents).
	ts := &Tools{mcp: manager, log: cfg.Logger, more: []tools.Tool{agents.LoadSkill{PersonalDir: cfg.InstructionsDir}}}
	if ts.log == nil {
		ts.log = slog.Default()
	}
	var err error
	if ts.builtins, err = tools.NewRegistry(append(builtinTools(), ts.more...)...); err != nil {
		if manager != nil {
			_ = manager.Close()
		}
		return nil, fmt.Errorf("build the agent stack: %w", err)
	}
	if approver == nil {
		approver = tools.NewApprover(Rules{DB: cfg.DB})
	}
	s := &Stack{DB: cfg.DB, Tools: ts, Workspaces: tools.NewManager(), Approver: approver,
		MCP: manager, Checkpoints: rec, Sandbox: cfg.Sandbox, Watches: watches, cfg: cfg, closed: make(chan struct{})}
	lc := loop.Config{Store: cfg.DB, Models: cfg.Models, Model: cfg.Model, Approver: s.Approver, Tools: ts,
		Workspaces: s.Workspaces, Prices: cfg.Prices, Logger: cfg.Logger, InstructionsDir: cfg.InstructionsDir,
		Respec: cfg.Respec, Skills: skillCatalog(cfg), Children: tasksOf(cfg), Harness: HarnessTokens}
	if rec != nil {
		lc.Checkpoints = rec // a typed nil would read as a recorder
	}
	s.Hooks = cfg.Hooks
	if s.Hooks == nil {
		s.Hooks = &hooks.Engine{PersonalDir: cfg.InstructionsDir}
	}
	s.Hooks.Trust, s.Hooks.Rows, s.Hooks.Logger = cfg.DB, cfg.DB, cfg.Logger
	lc.Hooks, lc.Admission, lc.Extensions = extend.FireHooks(s.Hooks, cfg.Logger), extend.PromptHooks(s.Hooks, cfg.DB, cfg.Logger), extensions(cfg, s.Hooks)
	s.Runner = loop.New(lc)
	if cfg.Telemetry != nil {
		// Telemetry never stops the agent: without it the runs go on, and the log says why.
		if err := s.SetTelemetry(cfg.Telemetry); err != nil {
			ts.log.Error("telemetry off", "err", err)
		}
	}
	return s, nil
}

// SetTelemetry sends the runs that finish from now on to cfg's collector (nil: to none),
// after sending what the previous configuration had queued.
func (s *Stack) SetTelemetry(cfg *telemetry.Config) error {
	s.telMu.Lock()
	defer s.telMu.Unlock()
	if s.telemetry != nil {
		_ = s.telemetry.Close() // its failures were counted and logged
		s.telemetry = nil
	}
	if cfg == nil {
		return nil
	}
	live, err := telemetry.Start(*cfg, s.DB, s.Runner.Bus(), s.Tools.log)
	if err != nil {
		return err
	}
	s.telemetry = live
	return nil
}

// TelemetryStats is what live export sent and dropped; false when it is off.
func (s *Stack) TelemetryStats() (telemetry.Stats, bool) {
	s.telMu.Lock()
	defer s.telMu.Unlock()
	if s.telemetry == nil {
		return telemetry.Stats{}, false
	}
	return s.telemetry.Stats(), true
}

// extensions wrap every run's ports (backend/extend), the first outermost: the hooks see a
// call as the model made it and may rewrite it before the grants and the review see it.
func extensions(cfg Config, engine *hooks.Engine) []loop.Extension {
	var memories tools.MemoryKeeper
	if cfg.DB != nil {
		memories = cfg.DB
	}
	return []loop.Extension{extend.Hooks(engine, cfg.Logger), extend.Skills(skillCatalog(cfg)), extend.Review(),
		extend.Images(cfg.DB), extend.Memory(memories)}
}

// tasksOf is the task tool's driver (every front end offers the task tool).
func tasksOf(cfg Config) *task.Driver {
	tasks := task.Config{}
	if cfg.Tasks != nil {
		tasks = *cfg.Tasks // the caller's config is not changed
	}
	if tasks.Agents == nil {
		// The folder's definitions and the person's own (beside their AGENTS.md), read as
		// each run starts.
		personal := cfg.InstructionsDir
		tasks.Agents = func(root string) []agents.Definition { return agents.Valid(agents.Definitions(personal, root)) }
	}
	return task.NewDriver(tasks, cfg.DB)
}

// Close cancels every run, waits until their rows are written, and stops the MCP servers and
// the recorder New made.
func (s *Stack) Close() {
	defer s.closeOnce.Do(func() { close(s.closed) })
	s.Runner.Close()
	s.telMu.Lock()
	if s.telemetry != nil {
		_ = s.telemetry.Close() // after the runs: their last spans are sent (for a few seconds at most)
	}
	s.telMu.Unlock()
	if s.MCP != nil {
		_ = s.MCP.Close() // the servers are gone either way; their log says why
	}
	if s.Checkpoints != nil && s.ownsCheckpoints {
		_ = s.Checkpoints.Close()
	}
}

// builtinTools are the tools every run has: the built-in ones, update_plan (the plan the
// window pins above the message box) and remember (a memory the person approves).
func builtinTools() []tools.Tool {
	return append(tools.Builtins(), tools.UpdatePlan{}, tools.Remember{})
}

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

var _ tools.ScopeSource = Rules{}

// Applies implements tools.ScopeSource: a rule applies everywhere, to its folder's sessions,
// or to its session and that session's children (as ListRules inherits them).
func (r Rules) Applies(ctx context.Context, rule tools.Rule, sessionID, workspace string) (bool, error) {
	switch rule.Scope {
	case store.ScopeEverywhere:
		return true, nil
	case store.ScopeWorkspace:
		return rule.ScopeID == workspace, nil
	}
	for id := sessionID; id != ""; {
		if id == rule.ScopeID {
			return true, nil
		}
		s, err := r.DB.GetSession(ctx, id)
		if err != nil || s.ParentCallID == "" {
			return false, nil // not a child (or gone): no parent whose rules it inherits
		}
		id = s.ParentID
	}
	return false, nil
}

// skillCatalog lists each run's skills; project skills' grants are checked against the
// person's trust kept in the database (none is trusted without one).
func skillCatalog(cfg Config) agents.Catalog {
	c := agents.Catalog{PersonalDir: cfg.InstructionsDir}
	if cfg.DB != nil {
		c.Trust = cfg.DB
	}
	return c
}
