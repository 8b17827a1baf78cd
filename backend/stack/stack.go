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
	"log/slog"

	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Config is what differs between the window and the CLI.
type Config struct {
	DB     *store.DB
	Model  loop.Model
	Prices loop.PriceTable
	// Tools are offered after the built-in ones (MCP tools, for instance).
	Tools  []tools.Tool
	Logger *slog.Logger
	// InstructionsDir holds the person's own AGENTS.md (config.ConfigDir()); "" for none.
	InstructionsDir string
}

// Stack is the wired agent. Close stops every run; the caller closes the database.
type Stack struct {
	DB         *store.DB
	Registry   *tools.Registry
	Workspaces *tools.Manager
	Approver   *tools.Approver
	Runner     *loop.Runner
}

// New wires a Stack. It does no I/O.
func New(cfg Config) (*Stack, error) {
	if cfg.DB == nil || cfg.Model == nil {
		return nil, fmt.Errorf("build the agent stack: a database and a model are required")
	}
	reg, err := tools.NewRegistry(append(tools.Builtins(), cfg.Tools...)...)
	if err != nil {
		return nil, fmt.Errorf("build the agent stack: %w", err)
	}
	s := &Stack{DB: cfg.DB, Registry: reg, Workspaces: tools.NewManager(), Approver: tools.NewApprover(Rules{DB: cfg.DB})}
	s.Runner = loop.New(loop.Config{Store: cfg.DB, Model: cfg.Model, Approver: s.Approver, Tools: reg,
		Workspaces: s.Workspaces, Prices: cfg.Prices, Logger: cfg.Logger, InstructionsDir: cfg.InstructionsDir})
	return s, nil
}

// Close cancels every run and waits until their rows are written.
func (s *Stack) Close() { s.Runner.Close() }

// Rules lets the approval policy read the rules kept in the store: the one adapter between
// store.Rule (the row) and tools.Rule (what the policy evaluates).
type Rules struct{ DB *store.DB }

var _ tools.RuleSource = Rules{}

// ListRules implements tools.RuleSource.
func (r Rules) ListRules(ctx context.Context, sessionID, workspace string) ([]tools.Rule, error) {
	rs, err := r.DB.ListRules(ctx, sessionID, workspace)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Rule, len(rs))
	for i, x := range rs {
		out[i] = tools.Rule{ID: x.ID, Tool: x.Tool, Pattern: x.Pattern, Effect: tools.Effect(x.Effect),
			Scope: tools.Scope(x.Scope), ScopeID: x.ScopeID}
	}
	return out, nil
}
