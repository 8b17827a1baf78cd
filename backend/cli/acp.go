package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/loopdesk/loopdesk/backend/acp"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

const acpUsage = `usage: loopdesk acp [flags]

Serves the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, any ACP
client); logs go to stderr. Sessions are ordinary Loopdesk sessions in the same database.
See docs/acp.md.

  --db PATH             database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --base-url URL        OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else the saved one)
  --model NAME          model (default $LOOPDESK_MODEL, else the saved one)
  --approve MODE        ask | read-only | sandboxed | auto | deny (default: saved, else ask)
  --sandbox MODE        on | off | auto (default auto)
  --sandbox-network     let sandboxed shell commands use the network
  --max-turns, --max-tool-calls, --max-tokens, --max-cost, --timeout, --context-window,
  --price-in, --price-out   as for loopdesk run
  --mcp-config FILE     MCP servers added to $XDG_CONFIG_HOME/loopdesk/mcp.json; repeatable
`

// ACP is `loopdesk acp`: it builds the same stack as `loopdesk run` and serves it over ACP
// until the client closes stdin or ctx ends, then cancels what still runs and waits for
// its rows.
func ACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A client that dies leaves stdout a broken pipe. Go's default is to kill the process on
	// the next write to fd 1, before the run is cancelled and its rows written; ignored, the
	// write fails with EPIPE and the agent shuts down as when stdin closes.
	signal.Ignore(syscall.SIGPIPE)
	fs := flag.NewFlagSet("loopdesk acp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dbPath := fs.String("db", "", "")
	var mcpConfigs []string
	fs.Func("mcp-config", "", func(v string) error { mcpConfigs = append(mcpConfigs, v); return nil })
	sandboxMode := fs.String("sandbox", string(sandbox.ModeBestEffort), "")
	network := fs.Bool("sandbox-network", false, "")
	var cf runConfigFlags
	cf.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, acpUsage)
		} else {
			fmt.Fprintf(stderr, "loopdesk acp: %v\n\n%s", err, acpUsage)
		}
		return ExitUsage
	}
	sbMode, err := sandbox.ParseMode(*sandboxMode)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	flags, ferr := cf.overrides(fs)
	if err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk acp: %v\n\n%s", err, acpUsage)
		return ExitUsage
	}
	if err := acpServe(ctx, *dbPath, mcpConfigs, flags, sbMode, *network, stdin, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "loopdesk acp: %v\n", err)
		return ExitOther
	}
	return ExitOK
}

func acpServe(ctx context.Context, dbPath string, mcpConfigs []string, flags config.Overrides, sbMode sandbox.Mode, network bool,
	stdin io.Reader, stdout, stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, srcs, err := resolve(ctx, dbPath, runGetenv, flags)
	if err != nil {
		return err
	}
	if cfg.Model == "" {
		return errors.New("no model: pass --model, set LOOPDESK_MODEL, or choose one in the window's Settings")
	}
	ps, err := loadProviders(cfg, srcs, runGetenv)
	if err != nil {
		return err // names the file and the entry; nothing was written
	}
	mcpCfg, err := mcp.LoadConfig(mcpConfigs...)
	if err != nil {
		return err
	}
	if dbPath == "" {
		if dbPath, err = store.DefaultPath(); err != nil {
			return err
		}
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetRunOrigin(store.RunOrigin{Kind: inbox.OriginACP}) // and the editor's name once it says it
	instr, err := config.ConfigDir()
	if err != nil {
		return err
	}
	// The shared stack runs the configured servers; a session the editor gives servers of its
	// own gets a stack of its own (acp.Config.NewStack, Stack.WithMCP), on the same Approver.
	st, err := stack.New(stack.Config{DB: db, MCP: &mcpCfg, Checkpoints: &checkpoint.Options{},
		Providers:       func(context.Context) (config.Providers, error) { return ps, nil },
		InstructionsDir: instr, Logger: log, Hooks: hooksEngine(instr, stderr, "loopdesk acp"),
		Telemetry: envTelemetry(os.Getenv, stderr)})
	if err != nil {
		return err
	}
	defer st.Close() // after Serve: waits for the rows of a run the client walked away from
	shell := st.Sandbox.Get().Shell(sbMode, network)
	if n := shell.Notice(); n != "" {
		log.Warn(n) // once, before anything runs: never silently unconfined
	}
	spec := func(sessionID, workspace, prompt string) loop.RunSpec {
		s := cfg.RunSpec(sessionID, workspace, prompt, "")
		s.Sandbox = shell
		return s
	}
	// With a window open on this database (now or later), the calls waiting here show in its
	// inbox too, labelled with the editor's name once it has said it (initialize).
	var regOnce sync.Once
	var link *inbox.Link
	defer func() {
		regOnce.Do(func() {}) // no registration after Serve returned
		if link != nil {
			link.Close()
		}
	}()
	stacks := newACPStacks(ctx, st)
	register := func(client string) {
		regOnce.Do(func() {
			db.SetRunOrigin(store.RunOrigin{Kind: inbox.OriginACP, Client: client})
			link = stacks.register(dbPath, inbox.Process{Kind: inbox.OriginACP, PID: os.Getpid(), Client: client})
		})
	}
	return acp.Serve(ctx, acp.Config{Stack: st, NewStack: stacks.withMCP, Spec: spec, Flags: flags, Model: cfg.Model, Version: Version,
		MCP: mcpCfg, Logger: log, OnInitialize: register}, stdin, stdout)
}
