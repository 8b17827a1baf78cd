package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The runner's view of its collaborators. The concrete types (*store.DB, *provider.Client,
// *tools.Approver, *tools.Registry, *tools.Manager) satisfy them; tests may pass fakes.

// Store is where rows and runs are kept.
type Store interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	// The durable queue (store.QueuedMessage): written before the core hears of a message,
	// removed by the user row that delivers it, in that row's transaction.
	Enqueue(ctx context.Context, sessionID string, m store.QueuedMessage) error
	Dequeue(ctx context.Context, sessionID, id string) (bool, error)
	Queued(ctx context.Context, sessionID string) ([]store.QueuedMessage, error)
	Chunks(ctx context.Context, sessionID string) ([]store.Chunk, error)
	ChunksAfter(ctx context.Context, sessionID string, after int64) ([]store.Chunk, error)
	// RequestRows: the rows a request is built from, those since the last compaction.
	RequestRows(ctx context.Context, sessionID string) ([]store.Chunk, error)
	// The writes, all through the run's journal (the persist executor); CheckIdle before
	// the run's row is written with its first rows (journal.Begin).
	journal.Store
	CheckIdle(ctx context.Context, sessionID string) error
	// LastRun is the session's latest run (false: none), read without listing the others.
	LastRun(ctx context.Context, sessionID string) (store.Run, bool, error)
}

// Model streams one chat completion. Its one error is Response.Err (provider.Client.Stream).
type Model interface {
	Stream(ctx context.Context, req provider.Request, h provider.Handler) provider.Response
}

// Models opens the model client of one run by the configured provider's name ("" is the
// provider named "default"), with the run's thinking budget (0: off). Origin names the
// provider and its kind; the runner fills in the model. An unknown provider or an unreadable
// key is an error that refuses the run before anything is written.
type Models interface {
	Model(ctx context.Context, provider string, thinkingBudget int) (Model, core.Origin, error)
}

// Approver decides a tool call, waiting for a person when the policy says ask.
type Approver interface {
	Request(ctx context.Context, req tools.Request) (tools.Decision, error)
}

// ToolRunner lists and runs tools. Run never panics and reports every failure as a result.
type ToolRunner interface {
	Specs() []tools.Spec
	Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result
}

// ToolSet is a ToolRunner whose tools change over time (MCP servers start, restart and
// change their tool lists): each run gets the set as it is when the run starts, so the
// tools offered to the model and the tools that run stay the same for the whole run.
type ToolSet interface {
	ForRun() ToolRunner
}

// Settler is a ToolSet whose tools may still be on their way (MCP servers starting): a run
// waits for them to settle before it fixes its tools, within the set's own bound, so it never
// silently lacks a configured server's tools. Settle returns the servers that failed, each as
// "name: why", for the run to say so in its first event.
type Settler interface {
	Settle(ctx context.Context) []string
}

// Checkpointer captures the folder around each call that may change files
// (backend/checkpoint). Before returns once the "before" state is durable.
type Checkpointer interface {
	Before(ctx context.Context, sessionID, runID, callID, root string) (*checkpoint.Capture, error)
}

// Workspaces hands out shared, reference-counted workspace handles.
type Workspaces interface {
	Acquire(root string) (*tools.Workspace, error)
}

// Config wires a Runner. Store, Model, Approver, Tools and Workspaces are required. Tools may
// also implement ToolSet.
type Config struct {
	Store Store
	// Models, when set, gives each run its client by RunSpec.Provider; else every run uses
	// Model, as the provider named "default".
	Models     Models
	Model      Model
	Approver   Approver
	Tools      ToolRunner
	Workspaces Workspaces
	// Checkpoints, when not nil, records what each call that may change files changed.
	Checkpoints Checkpointer
	Bus         *bus.Bus        // nil: a new bus (see Runner.Bus)
	Prices      core.PriceTable // per-model prices; models not listed cost nothing
	Logger      *slog.Logger
	Now         func() time.Time // nil: time.Now
	// PersistTimeout bounds each database write; writes are not cancelled by Cancel, so the
	// cancelled results of a stopped run still reach the database. 0: 30 s.
	PersistTimeout time.Duration
	// InstructionsDir holds the person's own AGENTS.md ($XDG_CONFIG_HOME/loopdesk); "" for none.
	InstructionsDir string
	// Hooks, when not nil, fires the hooks the core asks for: Stop, SubagentStop and
	// PreCompact (runner_fire.go, extend.FireHooks).
	Hooks HookFirer
	// Admission, when not nil, checks each prompt before it is sent (prompts.go).
	Admission Admission
	// Skills, when not nil, lists the folder's skills in the system prompt (runner_steer.go).
	Skills Skills
	// Respec, when set, completes every run's spec as Start begins — the runs the runner
	// starts itself for queued messages included — so each run takes the session's provider
	// and model as they are then: a change made during a run applies from the next one.
	Respec func(ctx context.Context, spec *RunSpec) error
	// Children, when set, offers the task tool: a call starts a child session (task.Driver).
	Children Children
	// Extensions wrap each run's ports (ports.go), the first outermost: stack.New composes
	// hooks, skill grants, hunk review and image fitting here.
	Extensions []Extension
	// Harness, when set, counts what Loopdesk itself adds to each request of a run, for
	// run_started (stack.HarnessTokens): from the spec's system prompt, the instruction
	// files, the whole system prompt, the tools offered and the notes the run stores.
	Harness func(base string, files []instructions.File, system string, tools []provider.ToolSpec, notes []store.NotePayload) *core.HarnessTokens
}

// RunSpec is one run: the prompt plus the agent chosen for it.
type RunSpec struct {
	SessionID    string
	Workspace    string // "" uses the session's workspace
	Prompt       string
	Model        string
	SystemPrompt string
	Limits       core.Limits // Price is filled from the price table when zero
	Mode         tools.Mode
	MaxTokens    int // per model call; 0: the server's default
	// Sandbox confines this run's shell commands (the session's mode and network over what
	// was detected at start-up); the zero value runs them unconfined. It applies when Tools
	// is a *tools.Registry; any other ToolRunner (a test's wrapper) runs as it is.
	Sandbox tools.ShellSandbox
	// Plan runs the session in plan mode: only read-only tools run, the rest are refused in
	// Go, and the model is told it is planning and should end with a plan.
	Plan bool
	// Queued are messages stored as user rows after the prompt (the runner fills it when it
	// starts the next run with the messages the last one did not deliver).
	Queued []core.QueuedMessage
	// PromptQueuedID names the stored queued message Prompt delivers (see Started).
	PromptQueuedID string
	// CompactThrough > 0: instead of a prompt, summarise the rows through this seq
	// ("Compact up to here": chat.Service.Start).
	CompactThrough int64
	// Command names the slash command or skill Prompt was expanded from ("/review"); the
	// prompt's row records it.
	Command string
	// Provider names the configured provider the run's model calls go to ("" is "default").
	// ThinkingBudget is the run's extended-thinking budget in tokens (anthropic): > 0 on,
	// < 0 off, 0 the client's configured default (stack.Models opens each run's client with
	// the budget the run resolved, so there 0 is off).
	Provider       string
	ThinkingBudget int
	// Resume runs again from the journal as it is, with no new prompt: Retry after a provider
	// error or an interruption, and Regenerate in a fork that ends on the person's message.
	// The model is called on the stored rows; nothing is added before the first call.
	Resume bool
	// Images go with Prompt on its user row (stored blobs: backend/store blobs.go).
	Images []store.ImageRef
	// Checked are the rows the prompt's check made (Config.Admission: its hook runs, then its
	// notes for the model), stored right after the prompt's row, before Notes.
	Checked []store.NewChunk
	// Notes are Loopdesk's notes the run stores as its own rows right after the prompt's row
	// (first, with no prompt), so its first request carries them: what a front end did to the
	// model's world when it started the run (an edit kept the files an abandoned version wrote).
	Notes []store.NotePayload
	// NoPerson says nobody can be asked during the run (no terminal and no window, a
	// schedule): a call only the person approves is refused (core.Started.NoPerson).
	NoPerson bool
	// Vision says whether the model is sent images: the person's per-model setting, or
	// VisionAuto for the default from the model's name (TextOnly).
	Vision images.Vision
	// ImagesDropped are the attached images the model is not sent (Vision.TextOnly), named by
	// the front end that attached them; run_started reports them.
	ImagesDropped []core.DroppedImage
	// client and origin are the run's model client and what it tags turns with (Start).
	client Model
	origin core.Origin
	// Child links a child session's run to the task call that started it (nil: a session's
	// own run).
	Child *ChildOf
	// rowFirst writes the run's row before Start returns (startNext: whoever waits on the
	// run before sees the next one recorded) instead of with its first rows.
	rowFirst bool
}

// openModel picks the run's model client: from Models by provider name, else Model.
func (r *Runner) openModel(ctx context.Context, spec *RunSpec) error {
	if r.cfg.Models == nil {
		name := spec.Provider
		if name == "" {
			name = "default"
		}
		spec.client, spec.origin = r.cfg.Model, core.Origin{Provider: name, Kind: provider.KindOpenAI}
	} else {
		m, o, err := r.cfg.Models.Model(ctx, spec.Provider, spec.ThinkingBudget)
		if err != nil {
			return err
		}
		spec.client, spec.origin = m, o
	}
	spec.origin.Model = spec.Model
	return nil
}

// RunMode is the mode recorded on the run row.
func (s RunSpec) RunMode() store.RunMode {
	if s.Plan {
		return store.ModePlan
	}
	return store.ModeExecute
}

// toolsFor is the ToolRunner of one run: a ToolSet's tools as they are now (MCP servers come
// and go), with the registry's shell confined as spec says. Only a concrete registry is
// rebuilt: a wrapper embedding one would lose its wrapping.
func (r *Runner) toolsFor(spec RunSpec) ToolRunner {
	t := r.cfg.Tools
	if set, ok := t.(ToolSet); ok {
		t = set.ForRun() // the MCP tools ready now, fixed for the run
	}
	if reg, ok := t.(*tools.Registry); ok {
		return reg.WithShell(spec.Sandbox)
	}
	return t
}

// Errors returned by Start.
var (
	// ErrBusy is store.ErrSessionBusy: one "busy" error, whichever layer noticed (this
	// process's runner, or a live run of another process recorded in the store).
	ErrBusy     = store.ErrSessionBusy
	ErrNoPrompt = errors.New("empty prompt")
	ErrClosed   = errors.New("runner closed")
	ErrNoRun    = errors.New("no such run")
	// ErrNotRunning: a message can be queued only while a run is going; start one instead.
	ErrNotRunning = errors.New("no run is going")
)

// Runner runs agent loops, one goroutine per running session. It is safe for concurrent use.
type Runner struct {
	cfg  Config
	bus  *bus.Bus
	log  *slog.Logger
	base context.Context
	stop context.CancelFunc

	mu        sync.Mutex
	bySession map[string]*run
	byRun     map[string]*run
	closed    bool
	wg        sync.WaitGroup

	requests store.RequestCaches // per session: the next request is built from what changed
}

// New makes a Runner; it does no I/O.
func New(cfg Config) *Runner {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Bus == nil {
		cfg.Bus = bus.New(cfg.Logger)
	}
	if cfg.PersistTimeout <= 0 {
		cfg.PersistTimeout = 30 * time.Second
	}
	base, stop := context.WithCancel(context.Background())
	return &Runner{cfg: cfg, bus: cfg.Bus, log: cfg.Logger, base: base, stop: stop,
		bySession: map[string]*run{}, byRun: map[string]*run{}}
}

// Bus is where the runner publishes its events.
func (r *Runner) Bus() *bus.Bus { return r.bus }

// PersistTimeout bounds each database write of a run (Config.PersistTimeout).
func (r *Runner) PersistTimeout() time.Duration { return r.cfg.PersistTimeout }

// Start checks that the session can take a run and starts it on its own goroutine. The run's
// row is written with the run's first rows, normally the prompt, in one transaction (doc.go,
// "Durable commits"); the outcome arrives as run_finished on the bus, in the run row, and
// from Wait. ctx bounds only the start itself, not the run.
func (r *Runner) Start(ctx context.Context, spec RunSpec) (string, error) {
	if spec.Prompt == "" && len(spec.Images) == 0 && len(spec.Queued) == 0 && spec.CompactThrough == 0 && !spec.Resume {
		return "", fmt.Errorf("start run on session %s: %w", spec.SessionID, ErrNoPrompt)
	}
	if r.cfg.Respec != nil {
		if err := r.cfg.Respec(ctx, &spec); err != nil {
			return "", fmt.Errorf("start run on session %s: %w", spec.SessionID, err)
		}
	}
	if err := r.openModel(ctx, &spec); err != nil {
		return "", fmt.Errorf("start run on session %s: %w", spec.SessionID, err)
	}
	rn, err := r.reserve(ctx, spec)
	if err != nil {
		return "", fmt.Errorf("start run on session %s: %w", spec.SessionID, err)
	}
	if err := rn.prepare(ctx); err != nil {
		close(rn.ctl.loopDone) // a Queue waiting for this run gives up
		r.mu.Lock()
		delete(r.bySession, spec.SessionID)
		r.mu.Unlock()
		r.wg.Done()
		return "", err // prepare says what it was doing
	}
	r.mu.Lock()
	r.byRun[rn.id] = rn
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		rn.loop()
	}()
	return rn.id, nil
}

// reserve takes the session for a new run, so two quick Starts cannot both take it, and
// counts the run now so Close waits for it even while it is still being prepared. A run that
// has published run_finished and is letting go is waited for: someone reacting to that
// event must be able to start the next run.
func (r *Runner) reserve(ctx context.Context, spec RunSpec) (*run, error) {
	for {
		r.mu.Lock()
		cur := r.bySession[spec.SessionID]
		switch {
		case r.closed:
			r.mu.Unlock()
			return nil, ErrClosed
		case cur != nil && !cur.end.finishing && !cur.ended():
			r.mu.Unlock()
			return nil, ErrBusy
		case cur != nil:
			r.mu.Unlock()
			select {
			case <-cur.end.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		break // r.mu still held
	}
	defer r.mu.Unlock()
	rn := &run{r: r, spec: spec, end: ending{done: make(chan struct{})}, ctl: control{cancel: make(chan struct{}),
		inputs: make(chan core.Input, 64), requests: make(chan queueRequest), loopDone: make(chan struct{})}}
	r.bySession[spec.SessionID] = rn
	r.wg.Add(1)
	return rn, nil
}

// Cancel asks the session's running run to stop. It returns at once; the run ends as
// cancelled (every outstanding call gets a cancelled result) shortly after. It reports
// whether a run was running.
func (r *Runner) Cancel(sessionID string) bool {
	r.mu.Lock()
	rn := r.bySession[sessionID]
	r.mu.Unlock()
	if rn == nil {
		return false
	}
	rn.ctl.cancelOnce.Do(func() { close(rn.ctl.cancel) })
	return true
}

// Running reports the id of the session's running run, if any.
func (r *Runner) Running(sessionID string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A run that has published run_finished is over for everyone watching; it is only
	// letting go of the session (Start waits for that).
	if rn := r.bySession[sessionID]; rn != nil && rn.id != "" && !rn.end.finishing {
		return rn.id, true
	}
	return "", false
}

// Wait blocks until the run ends or ctx does, and returns its result. It knows the runs this
// Runner started (a finished run keeps only its result); older runs are in the store.
func (r *Runner) Wait(ctx context.Context, runID string) (core.Result, error) {
	r.mu.Lock()
	rn := r.byRun[runID]
	r.mu.Unlock()
	if rn == nil {
		return core.Result{}, fmt.Errorf("wait for run %s: %w", runID, ErrNoRun)
	}
	select {
	case <-rn.end.done:
		return rn.end.result, nil
	case <-ctx.Done():
		return core.Result{}, fmt.Errorf("wait for run %s: %w", runID, ctx.Err())
	}
}

// Close cancels every running run and waits for them to finish.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	runs := make([]*run, 0, len(r.bySession))
	for _, rn := range r.bySession {
		runs = append(runs, rn)
	}
	r.mu.Unlock()
	for _, rn := range runs {
		rn.ctl.cancelOnce.Do(func() { close(rn.ctl.cancel) })
	}
	r.wg.Wait()
	r.stop()
}

// ended reports whether the run's core has finished (its result is being stored): a Start
// then waits for it instead of failing as busy.
func (rn *run) ended() bool {
	select {
	case <-rn.ctl.loopDone:
		return true
	default:
		return false
	}
}
