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

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
	"golang.org/x/sys/unix"
)

// Exit statuses of `loopdesk run` (docs/cli.md).
const (
	runExitCompleted = 0
	runExitOther     = 1
	runExitUsage     = 2
	runExitBound     = 3
	runExitCancelled = 4
	runExitModel     = 5
	// runExitStorage: the database failed under the run (storage_error: its disk full, an I/O
	// error), or could not be read or written at all.
	runExitStorage = 6
)

const runUsage = `usage: loopdesk run [flags] PROMPT

Runs the agent headless in a workspace and prints what it does.

  --session ID          continue this session (default: a new one); its own approval mode and
                        budgets (set in the window's header) apply unless a flag below names them
  --workspace DIR       the folder the agent works in (default: the session's, else the current dir)
  --db PATH             database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --provider NAME       provider: "default" or a name in $XDG_CONFIG_HOME/loopdesk/providers.json
                        (default: the session's, else the saved default)
  --model NAME          model (default: the session's, else $LOOPDESK_MODEL, else the saved one, else
                        the provider's first listed model). With --session, --provider and --model
                        change the session's provider and model from this run on
  --thinking-budget N   extended-thinking budget in tokens for this run (default: the provider's
                        thinking_budget, else off; 0 turns it off); raised, with a note, to the
                        provider's minimum
  --base-url URL        the "default" provider's OpenAI-compatible endpoint (default
                        $OPENAI_BASE_URL, else the saved one, else https://api.openai.com/v1);
                        refused for a provider of providers.json
  --system TEXT         system prompt for this run (default: the built-in agent instructions)
  --approve MODE        ask | read-only | sandboxed | review | auto | deny (default: saved, else ask; ask
                        without a terminal waits for the inbox of a Loopdesk window open on the same
                        database, and denies when none is; review shows write_file/edit_file hunks to keep or
                        drop one by one, and without a terminal behaves like ask: nothing is written)
  --sandbox MODE        on | off | auto: run shell commands in the sandbox (default auto: when one can be made)
  --sandbox-network     let sandboxed shell commands use the network
  --mode MODE           plan | execute (default execute); plan runs only read-only tools and ends with a plan
  --max-turns N         stop after N model calls (default: saved, else 50; 0 no limit)
  --max-tool-calls N    stop after N tool calls (default: saved, else 200)
  --max-tokens N        stop once input+output tokens reach N (default: saved, else no limit)
  --max-cost USD        stop once the run costs USD (prices: --price-in/--price-out, per million tokens)
  --price-in USD        input price per million tokens (default: the model's saved price, else 0)
  --price-out USD       output price per million tokens
  --timeout DURATION    wall-clock budget, e.g. 90s or 10m (default: saved, else 30m)
  --context-window N    the model's context window in tokens (default: saved for the model, else 128000)
  --image FILE          send this image (PNG, JPEG, WebP or GIF) with the prompt; repeatable. The
                        original is kept in the session; a request carries a copy scaled to the
                        provider's limits. A text-only model is not sent it: stderr says so
  --max-parallel-tasks N  child sessions (task calls) of one run going at once (default 4)
  --json                one JSON object per line on stdout: every event, run_finished last
  --mcp-config FILE     MCP servers (mcpServers format) for this run, added to
                        $XDG_CONFIG_HOME/loopdesk/mcp.json; repeatable

Without a flag, each value comes from $OPENAI_BASE_URL / $LOOPDESK_MODEL, else from what the
window's Settings saved, else the default; loopdesk settings shows which. The API key comes from
$OPENAI_API_KEY, else the key file Settings saved; it is never printed.
Exit status: 0 completed, 2 usage, 3 stopped by a bound, 4 cancelled, 5 truncated/refused/provider
error, 6 the database failed (disk full, I/O error), 1 anything else.
`

// runIsTerminal reports whether r is an interactive terminal; tests replace it. Only a
// terminal counts as a person: /dev/null is a character device too, so the test is whether
// the descriptor answers a terminal's ioctl, not its file mode.
var runIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

type runOptions struct {
	session, workspace, db, system string
	// flags are the configuration flags given; config.Effective puts them
	// over the saved settings and the environment.
	flags      config.Overrides
	provider   *string // --provider; nil: the session's, else the saved default
	thinking   *int    // --thinking-budget; nil: the provider's
	json       bool
	prompt     string
	mcpConfigs []string // --mcp-config files, after the XDG one
	images     []string // --image files, in order
	sandbox    sandbox.Mode
	network    bool
	plan       bool // --mode plan
	parallel   int  // --max-parallel-tasks: children of one run going at once (4)
}

// APIKey is the key `loopdesk run` sends. main takes it out of the environment at start-up
// (sandbox.HideSecrets) and hands it here, so no child process can read it; when it is
// empty, $OPENAI_API_KEY is read (tests that call Run in-process).
var APIKey string

// Secrets are the variables main took out of the environment the same way: APIKey and the
// providers' api_key_env variables (config.KeyEnvNames).
var Secrets map[string]string

// runGetenv is the environment as the configuration sees it: the hidden keys included.
func runGetenv(name string) string {
	if name == "OPENAI_API_KEY" && APIKey != "" {
		return APIKey
	}
	if v, ok := Secrets[name]; ok {
		return v
	}
	return os.Getenv(name)
}

type runUsageError struct{ msg string }

func (e runUsageError) Error() string { return e.msg }

// runParse reads flags and the prompt; flags may come before or after the prompt's words.
func runParse(args []string, stderr io.Writer) (*runOptions, error) {
	o, words, err := runParseFlags("loopdesk run", args, stderr, runUsage, nil)
	if err != nil {
		return nil, err
	}
	o.prompt = strings.TrimSpace(strings.Join(words, " "))
	if o.prompt == "" {
		return nil, runUsageError{"missing PROMPT"}
	}
	return o, nil
}

// runParseFlags reads run's flags, and those more adds (the session controls' own), from
// args; the words between them are returned in order. usage is printed for --help.
func runParseFlags(name string, args []string, stderr io.Writer, usage string, more func(*flag.FlagSet)) (*runOptions, []string, error) {
	o := &runOptions{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if more != nil {
		more(fs)
	}
	fs.StringVar(&o.session, "session", "", "")
	fs.StringVar(&o.workspace, "workspace", "", "")
	fs.StringVar(&o.db, "db", "", "")
	fs.StringVar(&o.system, "system", "", "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.Func("mcp-config", "", func(v string) error { o.mcpConfigs = append(o.mcpConfigs, v); return nil })
	fs.Func("image", "", func(v string) error { o.images = append(o.images, v); return nil })
	sandboxMode := fs.String("sandbox", string(sandbox.ModeBestEffort), "")
	runMode := fs.String("mode", string(store.ModeExecute), "")
	fs.BoolVar(&o.network, "sandbox-network", false, "")
	fs.IntVar(&o.parallel, "max-parallel-tasks", 4, "")
	var cf runConfigFlags
	cf.register(fs)
	var words []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, usage)
				return nil, nil, err
			}
			return nil, nil, runUsageError{err.Error()}
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
	if o.parallel < 1 {
		return nil, nil, runUsageError{"--max-parallel-tasks: want 1 or more"}
	}
	var sbErr error
	if o.sandbox, sbErr = sandbox.ParseMode(*sandboxMode); sbErr != nil {
		return nil, nil, runUsageError{"--" + sbErr.Error()}
	}
	if !store.RunMode(*runMode).Valid() {
		return nil, nil, runUsageError{fmt.Sprintf("--mode %q: want plan or execute", *runMode)}
	}
	o.plan = store.RunMode(*runMode) == store.ModePlan
	var err error
	if o.flags, err = cf.overrides(fs); err != nil {
		return nil, nil, runUsageError{err.Error()}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "thinking-budget":
			o.thinking = &cf.thinking
		case "provider":
			o.provider = &cf.provider
		}
	})
	return o, words, nil
}

// runConfigFlags are the flags that override the saved settings and the
// environment (config.Effective); only those given count.
type runConfigFlags struct {
	provider                string
	baseURL, model, approve string
	turns, toolCalls        int
	thinking                int
	tokens, window          int64
	cost, priceIn, priceOut float64
	timeout                 time.Duration
}

func (c *runConfigFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.provider, "provider", "", "")
	fs.IntVar(&c.thinking, "thinking-budget", 0, "")
	fs.StringVar(&c.baseURL, "base-url", "", "")
	fs.StringVar(&c.model, "model", "", "")
	fs.StringVar(&c.approve, "approve", "", "")
	fs.IntVar(&c.turns, "max-turns", 0, "")
	fs.IntVar(&c.toolCalls, "max-tool-calls", 0, "")
	fs.Int64Var(&c.tokens, "max-tokens", 0, "")
	fs.Float64Var(&c.cost, "max-cost", 0, "")
	fs.Float64Var(&c.priceIn, "price-in", 0, "")
	fs.Float64Var(&c.priceOut, "price-out", 0, "")
	fs.DurationVar(&c.timeout, "timeout", 0, "")
	fs.Int64Var(&c.window, "context-window", 0, "")
}

// overrides returns the flags fs saw, checked (a bad mode, a negative limit).
func (c *runConfigFlags) overrides(fs *flag.FlagSet) (config.Overrides, error) {
	var ov config.Overrides
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "base-url":
			ov.BaseURL = &c.baseURL
		case "model":
			ov.Model = &c.model
		case "approve":
			ov.ApprovalMode = &c.approve
		case "max-turns":
			ov.MaxTurns = &c.turns
		case "max-tool-calls":
			ov.MaxToolCalls = &c.toolCalls
		case "max-tokens":
			ov.MaxTokens = &c.tokens
		case "max-cost":
			ov.MaxCostUSD = &c.cost
		case "price-in":
			ov.PriceIn = &c.priceIn
		case "price-out":
			ov.PriceOut = &c.priceOut
		case "timeout":
			ov.Timeout = &c.timeout
		case "context-window":
			ov.ContextWindow = &c.window
		}
	})
	switch {
	case ov.ApprovalMode != nil && !tools.Mode(c.approve).Valid():
		return ov, fmt.Errorf("--approve %q: want ask, read-only, sandboxed, review, auto or deny", c.approve)
	case c.thinking < 0:
		return ov, errors.New("--thinking-budget cannot be negative")
	case c.turns < 0 || c.toolCalls < 0 || c.tokens < 0 || c.cost < 0 || c.timeout < 0 || c.window < 0 || c.priceIn < 0 || c.priceOut < 0:
		return ov, errors.New("limits and prices cannot be negative")
	}
	return ov, nil
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
	if errors.Is(err, store.ErrStorage) {
		code = runExitStorage
	}
	return code
}

func runAgent(ctx context.Context, o *runOptions, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	start := func(ctx context.Context, svc *chat.Service, sessionID string, r chat.Run) (string, string, error) {
		runID, err := svc.Start(ctx, sessionID, r)
		return sessionID, runID, err
	}
	return runAgentWith(ctx, o, start, stdin, stdout, stderr)
}

// runStart starts the run a command is for through the use-case layer, in the session
// sessionID or a fork of it: the session the run is in, and its id.
type runStart func(ctx context.Context, svc *chat.Service, sessionID string, r chat.Run) (runSession, runID string, err error)

// runAgentWith is `loopdesk run` and the session controls: the configuration, the session
// and its provider and model, the stack, the printer and the asker, then start, then the
// wait for the run's end (or an interrupt).
func runAgentWith(ctx context.Context, o *runOptions, start runStart, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cfg, srcs, err := resolve(ctx, o.db, runGetenv, o.flags)
	if err != nil {
		return settingErrorCode(err), err
	}
	ps, err := loadProviders(cfg, srcs, runGetenv)
	if err != nil {
		return runExitOther, err // names the file and the entry; nothing was written
	}
	mcpCfg, err := mcp.LoadConfig(o.mcpConfigs...)
	if err != nil {
		return runExitOther, err // names the file and the server; nothing was written
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
	db.SetRunOrigin(store.RunOrigin{Kind: inbox.OriginRun})

	// Images are read and checked before a session is made: a bad file changes nothing.
	imgs, err := runImages(ctx, db, o.images)
	if err != nil {
		return runExitOther, err
	}
	target, err := runTargetOf(ctx, db, o, ps, &cfg)
	if ue := (runUsageError{}); errors.As(err, &ue) {
		return runExitUsage, err
	} else if err != nil {
		return runExitOther, err
	}
	if target.notice != "" {
		fmt.Fprintf(stderr, "loopdesk run: %s\n", target.notice)
	}
	sessionID := target.sessionID
	instr, err := config.ConfigDir()
	if err != nil {
		return runExitOther, err
	}
	// A one-shot process: no inotify watcher, each capture walks the folder (stat only).
	st, err := stack.New(stack.Config{DB: db, Models: target.models, MCP: &mcpCfg,
		Checkpoints: &checkpoint.Options{NoWatch: true}, InstructionsDir: instr,
		Hooks: hooksEngine(instr, stderr, "loopdesk run"), Tasks: &task.Config{MaxParallel: o.parallel},
		Telemetry: envTelemetry(os.Getenv, stderr)})
	if err != nil {
		return runExitOther, err
	}
	defer st.Close()
	runner := st.Runner
	// The first request already offers every server's tools: wait for each to be ready or
	// failed (bounded by the initialize timeout).
	_ = st.MCP.WaitSettled(ctx)

	subCtx, stopSub := context.WithCancel(context.Background())
	printer := runNewPrinter(stdout, stderr, o.json)
	// Every session of this process's runner: the run's own and the child sessions its task
	// calls start (their events carry parent_call_id; their approvals are asked here too).
	exited := runner.Bus().Subscribe(subCtx, "", printer.print)
	asker := runNewAsker(stdin, stderr, db, st.Approver, runIsTerminal(stdin))
	// With a window open on this database (now or later), the calls waiting here show in its
	// inbox too.
	link := registerInbox(ctx, path, st, st.Runner, inbox.Process{Kind: inbox.OriginRun, PID: os.Getpid()})
	defer link.Close()
	defer asker.withInbox(link, stderr)()
	asked := runner.Bus().Subscribe(subCtx, "", asker.onEvent)
	defer func() { stopSub(); <-exited; <-asked }()

	// The same shape (and default instructions) as a run from the window.
	shell := st.Sandbox.Get().Shell(o.sandbox, o.network)
	if n := shell.Notice(); n != "" {
		fmt.Fprintf(stderr, "loopdesk run: %s\n", n) // once, before anything runs: never silently unconfined
	}
	vision := cfg.VisionOf(target.choice.Provider, cfg.Model) // the window's per-model vision setting
	dropped := imagesDropped(o.images, vision.TextOnly(cfg.Model))
	for _, d := range dropped {
		fmt.Fprintf(stderr, "loopdesk run: --image %s: %s\n", d.Path, d.Reason)
	}
	command := loop.RunSpec{Workspace: o.workspace, Prompt: o.prompt}
	if err := runCommand(&command, instr); err != nil {
		return runExitOther, err
	}
	svc := chat.New(chat.Config{Stack: st, Flags: o.flags, Spec: func(_ context.Context, s store.Session) (loop.RunSpec, error) {
		spec := cfg.RunSpec(s.ID, o.workspace, "", o.system)
		spec.Sandbox = shell
		spec.Provider, spec.ThinkingBudget, spec.Vision = target.choice.Provider, target.budget, vision
		spec.NoPerson = !asker.terminal && !asker.inboxAnswers() // calls only the person approves are refused
		return spec, nil
	}})
	plan := o.plan
	runSession, runID, err := start(ctx, svc, sessionID, chat.Run{Prompt: command.Prompt, Images: imgs, Plan: &plan,
		Edit: func(spec *loop.RunSpec) { spec.Command, spec.ImagesDropped = command.Command, dropped }})
	if ue := (runUsageError{}); errors.As(err, &ue) || errors.Is(err, stack.ErrInvalidInput) || errors.Is(err, store.ErrSeqOutOfRange) {
		return runExitUsage, err
	} else if err != nil {
		return runExitOther, err
	}
	sessionID = runSession
	asker.start()
	defer asker.stop()

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	finished := make(chan core.Result, 1)
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
			if res.Status == core.StopStorageError && o.json {
				// The text output says it on stderr already; --json's stdout is for programs.
				return runExitStorage, errors.New(res.Error)
			}
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

// runSession opens the session to continue, or creates one for the workspace, with the
// run's provider and model (config.Providers.Choose). A continued session whose provider
// or model the flags change keeps the new ones for its next runs.
func runSession(ctx context.Context, db *store.DB, o *runOptions, ps config.Providers, cfg config.Resolved,
	canOpen func(config.Choice) error) (string, config.Choice, error) {
	flags, saved := config.Choice{}, config.Choice{Provider: cfg.Provider, Model: cfg.Model}
	if o.provider != nil {
		flags.Provider = *o.provider
	}
	if o.flags.Model != nil {
		flags.Model = *o.flags.Model
	}
	if o.session != "" {
		s, err := db.GetSession(ctx, o.session)
		if err != nil {
			return "", config.Choice{}, err
		}
		if o.workspace == "" {
			o.workspace = s.Workspace
		}
		if o.workspace == "" {
			o.workspace = "."
		}
		own := config.Choice{Provider: s.Provider, Model: s.Model}
		c, err := ps.Choose(flags, &own, saved)
		if err == nil {
			err = canOpen(c)
		}
		if err == nil {
			err = runCheckDir(o)
		}
		if err == nil && c != own && (c.Model != own.Model || own.Provider != "" || c.Provider != config.DefaultProvider) {
			err = db.SetSessionModel(ctx, s.ID, c.Provider, c.Model)
		}
		return s.ID, c, err
	}
	c, err := ps.Choose(flags, nil, saved)
	if err == nil {
		err = canOpen(c)
	}
	if err != nil {
		return "", config.Choice{}, err
	}
	if o.workspace == "" {
		o.workspace = "."
	}
	if err := runCheckDir(o); err != nil {
		return "", config.Choice{}, err
	}
	s, err := db.CreateSession(ctx, store.NewSession{Workspace: o.workspace, Model: c.Model, Provider: c.Provider})
	if err != nil {
		return "", config.Choice{}, err
	}
	return s.ID, c, nil
}

// runTarget is what a run works on and with: its session, provider and model, thinking
// budget, and the clients of the configured providers.
type runTarget struct {
	sessionID string
	choice    config.Choice
	budget    int
	notice    string // what the person should know of the budget (raised to the minimum)
	models    stack.Models
}

// runTargetOf picks the session and the run's provider and model (cfg then prices the
// model). The client is made (no I/O) before the session is written, so a provider this
// build cannot open leaves nothing behind.
func runTargetOf(ctx context.Context, db *store.DB, o *runOptions, ps config.Providers, cfg *config.Resolved) (runTarget, error) {
	t := runTarget{models: stack.Models{Providers: func(context.Context) (config.Providers, error) { return ps, nil }}}
	canOpen := func(c config.Choice) error {
		if err := baseURLApplies(o, ps, c.Provider); err != nil {
			return err
		}
		_, _, err := t.models.Model(ctx, c.Provider, 0)
		return err
	}
	var err error
	if t.sessionID, t.choice, err = runSession(ctx, db, o, ps, *cfg, canOpen); err != nil {
		return runTarget{}, err
	}
	cfg.UseModel(t.choice.Model, o.flags)
	t.budget, t.notice, err = thinkingBudget(ps, t.choice.Provider, o.thinking)
	return t, err
}

// runImages reads, checks and stores the --image files, in order.
func runImages(ctx context.Context, db *store.DB, paths []string) ([]store.ImageRef, error) {
	in := make([]stack.RawImage, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("--image: %w", err)
		}
		in[i] = stack.RawImage{Name: filepath.Base(p), Data: data}
	}
	if len(in) == 0 {
		return nil, nil
	}
	return stack.StoreImages(ctx, db, in)
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

func runExitCode(s core.StopReason) int {
	switch {
	case s == core.StopCompleted:
		return runExitCompleted
	case s.IsBound():
		return runExitBound
	case s == core.StopCancelled, s == core.StopHook:
		return runExitCancelled
	case s == core.StopTruncated, s == core.StopRefused, s == core.StopProviderError:
		return runExitModel
	case s == core.StopStorageError:
		return runExitStorage
	}
	return runExitOther
}
