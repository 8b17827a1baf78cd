package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Exit statuses of `loopdesk run` (docs/cli.md).
const (
	runExitCompleted = 0
	runExitOther     = 1
	runExitUsage     = 2
	runExitBound     = 3
	runExitCancelled = 4
	runExitModel     = 5
)

const runUsage = `usage: loopdesk run [flags] PROMPT

Runs the agent headless in a workspace and prints what it does.

  --session ID          continue this session (default: a new one)
  --workspace DIR       the folder the agent works in (default: the session's, else the current dir)
  --db PATH             database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --base-url URL        OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else https://api.openai.com/v1)
  --model NAME          model (default $LOOPDESK_MODEL)
  --system TEXT         system prompt for this run (default: the built-in agent instructions)
  --approve MODE        ask | read-only | auto | deny (default ask; ask without a terminal denies)
  --mode MODE           plan | execute (default execute); plan runs only read-only tools and ends with a plan
  --max-turns N         stop after N model calls
  --max-tool-calls N    stop after N tool calls
  --max-tokens N        stop once input+output tokens reach N
  --max-cost USD        stop once the run costs USD (prices: --price-in/--price-out, per million tokens)
  --price-in USD        input price per million tokens (default 0: a local model)
  --price-out USD       output price per million tokens
  --timeout DURATION    wall-clock budget, e.g. 90s or 10m
  --context-window N    the model's context window in tokens (enables compaction)
  --json                one JSON object per line on stdout: every event, run_finished last

The API key comes from $OPENAI_API_KEY only.
Exit status: 0 completed, 2 usage, 3 stopped by a bound, 4 cancelled, 5 truncated/refused/provider
error, 1 anything else.
`

// runIsTerminal reports whether r is an interactive terminal; tests replace it.
var runIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

type runOptions struct {
	session, workspace, db, baseURL, model, system string
	mode                                           tools.Mode
	plan                                           bool
	limits                                         loop.Limits
	price                                          loop.Price
	json                                           bool
	prompt                                         string
}

type runUsageError struct{ msg string }

func (e runUsageError) Error() string { return e.msg }

// runParse reads flags and the prompt; flags may come before or after the prompt's words.
func runParse(args []string, stderr io.Writer) (*runOptions, error) {
	o := &runOptions{}
	fs := flag.NewFlagSet("loopdesk run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.session, "session", "", "")
	fs.StringVar(&o.workspace, "workspace", "", "")
	fs.StringVar(&o.db, "db", "", "")
	fs.StringVar(&o.baseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "")
	fs.StringVar(&o.model, "model", os.Getenv("LOOPDESK_MODEL"), "")
	fs.StringVar(&o.system, "system", "", "")
	approve := fs.String("approve", string(tools.ModeAsk), "")
	runMode := fs.String("mode", string(store.ModeExecute), "")
	fs.IntVar(&o.limits.MaxTurns, "max-turns", 0, "")
	fs.IntVar(&o.limits.MaxToolCalls, "max-tool-calls", 0, "")
	fs.Int64Var(&o.limits.MaxTokens, "max-tokens", 0, "")
	fs.Float64Var(&o.limits.MaxCostUSD, "max-cost", 0, "")
	fs.Float64Var(&o.price.InputPerMTok, "price-in", 0, "")
	fs.Float64Var(&o.price.OutputPerMTok, "price-out", 0, "")
	fs.DurationVar(&o.limits.Timeout, "timeout", 0, "")
	fs.Int64Var(&o.limits.ContextWindow, "context-window", 0, "")
	fs.BoolVar(&o.json, "json", false, "")

	var words []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, runUsage)
				return nil, err
			}
			return nil, runUsageError{err.Error()}
		}
		used := len(rest) - len(fs.Args())
		terminated := used > 0 && rest[used-1] == "--"
		rest = fs.Args()
		if terminated {
			words = append(words, rest...) // after "--" everything is the prompt
			break
		}
		if len(rest) == 0 {
			break
		}
		words = append(words, rest[0])
		rest = rest[1:]
	}
	o.prompt = strings.TrimSpace(strings.Join(words, " "))
	o.mode = tools.Mode(*approve)
	switch {
	case o.prompt == "":
		return nil, runUsageError{"missing PROMPT"}
	case !o.mode.Valid():
		return nil, runUsageError{fmt.Sprintf("--approve %q: want ask, read-only, auto or deny", *approve)}
	case !store.RunMode(*runMode).Valid():
		return nil, runUsageError{fmt.Sprintf("--mode %q: want plan or execute", *runMode)}
	case o.limits.MaxTurns < 0 || o.limits.MaxToolCalls < 0 || o.limits.MaxTokens < 0 || o.limits.MaxCostUSD < 0 ||
		o.limits.Timeout < 0 || o.limits.ContextWindow < 0 || o.price.InputPerMTok < 0 || o.price.OutputPerMTok < 0:
		return nil, runUsageError{"limits and prices cannot be negative"}
	}
	o.limits.Price = o.price
	o.plan = store.RunMode(*runMode) == store.ModePlan
	if o.baseURL == "" {
		o.baseURL = "https://api.openai.com/v1"
	}
	return o, nil
}

// Run is `loopdesk run`: it runs the agent once and returns the exit status. The first
// interrupt (SIGINT/SIGTERM, or ctx ending) cancels the run cleanly; a second exits at once.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := runParse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return runExitUsage
	}
	var ue runUsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "loopdesk run: %s\n\n%s", ue.msg, runUsage)
		return runExitUsage
	}
	code, err := runAgent(ctx, o, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk run: %v\n", err)
	}
	return code
}

func runAgent(ctx context.Context, o *runOptions, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if o.model == "" {
		return runExitOther, errors.New("no model: pass --model or set LOOPDESK_MODEL")
	}
	path := o.db
	if path == "" {
		var err error
		if path, err = store.DefaultPath(); err != nil {
			return runExitOther, err
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return runExitOther, err
	}
	defer db.Close()

	sessionID, err := runSession(ctx, db, o)
	if err != nil {
		return runExitOther, err
	}
	instr, err := config.ConfigDir()
	if err != nil {
		return runExitOther, err
	}
	st, err := stack.New(stack.Config{DB: db, InstructionsDir: instr,
		Model: provider.New(provider.Config{BaseURL: o.baseURL, APIKey: os.Getenv("OPENAI_API_KEY"), Model: o.model})})
	if err != nil {
		return runExitOther, err
	}
	defer st.Close()
	runner := st.Runner

	subCtx, stopSub := context.WithCancel(context.Background())
	printer := runNewPrinter(stdout, stderr, o.json)
	exited := runner.Bus().Subscribe(subCtx, sessionID, printer.print)
	asker := runNewAsker(stdin, stderr, db, st.Approver, runIsTerminal(stdin))
	asked := runner.Bus().Subscribe(subCtx, sessionID, asker.onEvent)
	defer func() { stopSub(); <-exited; <-asked }()

	if o.system == "" {
		o.system = loop.DefaultSystemPrompt(o.workspace) // the same instructions the window uses
	}
	runID, err := runner.Start(ctx, loop.RunSpec{SessionID: sessionID, Workspace: o.workspace, Prompt: o.prompt,
		Model: o.model, SystemPrompt: o.system, Limits: o.limits, Mode: o.mode, Plan: o.plan})
	if err != nil {
		return runExitOther, err
	}
	asker.start()
	defer asker.stop()

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	finished := make(chan loop.Result, 1)
	go func() {
		res, _ := runner.Wait(context.Background(), runID) // Wait only fails on ctx or an unknown id
		finished <- res
	}()
	ctxDone := ctx.Done()
	signals := 0
	for {
		select {
		case res := <-finished:
			printer.waitFor(runID, 10*time.Second)
			return runExitCode(res.Status), nil
		case <-ctxDone:
			ctxDone = nil
			runner.Cancel(sessionID)
			asker.stop()
		case <-sigs:
			if signals++; signals >= 2 {
				fmt.Fprintln(stderr, "loopdesk run: interrupted again, exiting")
				return runExitCancelled, nil
			}
			fmt.Fprintln(stderr, "loopdesk run: cancelling (interrupt again to exit now)")
			runner.Cancel(sessionID)
			asker.stop()
		}
	}
}

// runSession opens the session to continue, or creates one for the workspace.
func runSession(ctx context.Context, db *store.DB, o *runOptions) (string, error) {
	if o.session != "" {
		s, err := db.GetSession(ctx, o.session)
		if err != nil {
			return "", err
		}
		if o.workspace == "" {
			o.workspace = s.Workspace
		}
		if o.workspace == "" {
			o.workspace = "."
		}
		return s.ID, runCheckDir(o)
	}
	if o.workspace == "" {
		o.workspace = "."
	}
	if err := runCheckDir(o); err != nil {
		return "", err
	}
	s, err := db.CreateSession(ctx, store.NewSession{Title: loop.Title(o.prompt), Workspace: o.workspace, Model: o.model})
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

func runCheckDir(o *runOptions) error {
	abs, err := filepath.Abs(o.workspace)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", o.workspace, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("workspace %s is not a directory", abs)
	}
	o.workspace = abs
	return nil
}

func runExitCode(s loop.StopReason) int {
	switch {
	case s == loop.StopCompleted:
		return runExitCompleted
	case s.IsBound():
		return runExitBound
	case s == loop.StopCancelled:
		return runExitCancelled
	case s == loop.StopTruncated, s == loop.StopRefused, s == loop.StopProviderError:
		return runExitModel
	}
	return runExitOther
}
