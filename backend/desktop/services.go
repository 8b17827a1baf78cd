package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// EventLoop is the one Wails event that carries every loop event to the page; each event's
// "type" field says which. One emit carries one or more events, in order (an EventBatch:
// the listener is called with each as an argument). The other channels are listed in Channels below; the page's
// constants for them are generated from Channels (scripts/gentypes, `make types`).
const EventLoop = "loop:event"

// EventMCPStatus carries an MCP server's status (mcp.Status) each time it changes.
const EventMCPStatus = "mcp:status"

// Channels lists every Wails event name Go emits to the page.
var Channels = []string{EventLoop, EventWorkspaceChanged, EventWorkspaceWarning, EventMCPStatus, EventOpenFolder, EventFocusCard, EventInboxChanged,
	EventActivityChanged, EventCloseRequested}

// Emitter publishes an event to the page. In the window it is runtime.EventsEmit; tests pass
// a recorder.
type Emitter func(name string, data any)

// Dialogs are the native dialogs; main.go passes Wails' runtime, tests a fake.
type Dialogs interface {
	ChooseFolder(title string) (string, error)
	SaveFile(title, defaultName string) (string, error)
	// OpenFile picks an existing file to read (a session export); "" when cancelled.
	OpenFile(title string) (string, error)
}

// Services are the small structs the window binds (Sessions, Chat, Settings, Workspace, Window),
// sharing one agent stack. Nothing here trusts the page: approvals are decided by the
// Approver, which only accepts answers for calls it is waiting on.
type Services struct {
	Sessions  *Sessions
	Chat      *Chat
	Settings  *Settings
	Workspace *Workspace
	Window    *Window
	Lifecycle *Lifecycle
	Reports   *Reports

	c *core
}

// core is what the services share.
type core struct {
	db       *store.DB
	st       *stack.Stack
	chat     *chat.Service // every run, queue, edit, regenerate and retry goes through it
	settings SettingsStore
	watches  *Watches
	dialogs  Dialogs
	mcpPath  string // the MCP configuration file the window edits
	emit     Emitter
	instance *Instance // the launch's folder; nil in tests
	notices  *notices  // desktop notifications (notifications.go)
	activity *activity // what each session is doing, for the board (activity.go)
	window   WindowControl
	inbox    *inbox.Hub // what waits for the person, here and in registered processes (inbox.go)
	// limits are the rate-limit headers each provider sent last (Reports.ProviderLimits).
	limits provider.LimitBoard
	// instructionsDir holds the person's own AGENTS.md.
	instructionsDir string
	// life closes, hides and quits the window (lifecycle.go).
	life *lifecycle

	mu     sync.Mutex
	ctx    context.Context // app lifetime; cancelled on shutdown
	cancel context.CancelFunc
}

// New builds the services on db. The model reads the saved endpoint and key at each call, so
// a change in Settings applies to the next call. MCP servers come from the file at mcpPath
// ("" for none) and start in the background at once; a bad file is reported in Settings,
// never fatal. Startup must be called before anything runs.
//
// New detects the sandbox once, starting at once (stack.New starts bwrap to prove it works);
// NewWith takes a probe, which the window starts once its page has loaded, and tests give
// one whose answer is known.
func New(db *store.DB, keys config.Keys, dialogs Dialogs, mcpPath string) (*Services, error) {
	return newServices(db, keys, dialogs, mcpPath, nil)
}

// NewWith is New with the sandbox probe given.
func NewWith(db *store.DB, keys config.Keys, dialogs Dialogs, mcpPath string, sb *stack.SandboxProbe) (*Services, error) {
	return newServices(db, keys, dialogs, mcpPath, sb)
}

func newServices(db *store.DB, keys config.Keys, dialogs Dialogs, mcpPath string, sb *stack.SandboxProbe) (*Services, error) {
	settings := SettingsStore{DB: db, Keys: keys, Getenv: keys.Getenv}
	instr, err := config.ConfigDir()
	if err != nil {
		return nil, err
	}
	c := &core{db: db, settings: settings, watches: &Watches{}, dialogs: dialogs, ctx: context.Background(),
		mcpPath: mcpPath, instructionsDir: instr}
	cfg, cfgErr := c.mcpConfig()
	if cfgErr != nil {
		cfg = mcp.Config{} // Settings shows the error; the session goes on with the other tools
	}
	st, err := stack.New(stack.Config{DB: db, Providers: settings.Providers, Configure: func(pc *provider.Config) {
		pc.RequestTimeout, pc.IdleTimeout, pc.MaxRetries = 10*time.Minute, 2*time.Minute, 3
		pc.OnLimits = c.limits.Record // the meters show what the provider said last
	}, Respec: c.respec, MCP: &cfg, MCPOptions: mcp.Options{OnStatus: c.mcpStatus},
		Checkpoints: &checkpoint.Options{}, Sandbox: sb, InstructionsDir: instr, Telemetry: startTelemetry(keys, keys.Getenv)})
	if err != nil {
		return nil, err
	}
	c.st = st
	c.chat = chat.New(chat.Config{Stack: st, Spec: c.runSpec})
	c.watches.Shared = st.Watches // the tree and the checkpoints share each folder's watcher
	c.notices = newNotices(c)
	c.inbox = c.newInbox()
	c.life = newLifecycle(c)
	return &Services{Sessions: &Sessions{c}, Chat: &Chat{c}, Settings: &Settings{c}, Workspace: &Workspace{c}, Window: &Window{c},
		Lifecycle: &Lifecycle{c}, Reports: &Reports{c}, c: c}, nil
}

// SetInstance gives the window the single-instance handle, through which a folder named on
// the command line (of this launch or a later one) reaches the page.
func (s *Services) SetInstance(in *Instance) { s.c.instance = in }

// Bound lists the structs to bind, in the order of Services' fields.
func (s *Services) Bound() []any {
	return []any{s.Sessions, s.Chat, s.Settings, s.Workspace, s.Window, s.Lifecycle, s.Reports}
}

// Startup starts forwarding loop and workspace events to the page.
func (s *Services) Startup(ctx context.Context, emit Emitter) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.watches.Emit = emit
	c.emit = emit
	// Loop events go out batched, one emit per frame (batch.go says why); the bus hands them
	// to this subscriber in order, and the batcher keeps that order.
	loopEvents := newBatcher(c.ctx, EventLoop, emit, batchInterval)
	c.st.Runner.Bus().Subscribe(c.ctx, "", func(ev bus.Event) { loopEvents.add(pageEvent(ev)) })
	c.activity = c.startActivity()
	c.startInbox(c.ctx)
	release := new(memoryRelease)
	c.st.Runner.Bus().Subscribe(c.ctx, "", release.offer)
	release.settle()
}

// Shutdown cancels every run and waits until their rows are written.
func (s *Services) Shutdown() {
	c := s.c
	c.st.Close() // the runs, the MCP servers and the checkpoint recorder
	c.watches.Close()
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
}

func (c *core) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

func (c *core) running(sessionID string) bool {
	_, ok := c.st.Runner.Running(sessionID)
	return ok
}

// ---- DTOs

// Session is a session as the page sees it. Scratch says its folder is the app's private
// scratch folder (made for a session whose person chose none), not one of the person's.
type Session struct {
	store.Session
	Scratch bool `json:"scratch"`
}

// SessionSummary is a session in the list.
type SessionSummary struct {
	Session
	Running bool `json:"running"`
}

// SessionView is one session with everything the window shows of it when it opens. Meters
// are what the meters show while no run is going: the last run's, against its limits.
type SessionView struct {
	Session Session         `json:"session"`
	Rows    []bus.StoredRow `json:"rows"`
	// RowCount is how many rows the session holds and FirstSeq its first row's seq (0 when it
	// has none): Rows may be only its last ones (OpenSessionTail).
	RowCount     int64                               `json:"row_count"`
	FirstSeq     int64                               `json:"first_seq"`
	Runs         []store.Run                         `json:"runs"`
	Pending      []loopcore.ApprovalRequestedPayload `json:"pending"`
	RunningRunID string                              `json:"running_run_id"`
	Running      []loop.RunningCall                  `json:"running"` // the running run's executing calls (Chat.Live)
	Meters       []loopcore.Meter                    `json:"meters"`
	Sandbox      SandboxView                         `json:"sandbox"` // what the next run's shell commands get
	// Mode is the mode the window keeps for the session; Totals what all its runs used;
	// Queued the messages waiting for the running run's next tool boundary.
	Mode   store.SessionMode        `json:"mode"`
	Totals store.Totals             `json:"totals"`
	Queued []loopcore.QueuedMessage `json:"queued"`
	// Budgets are the session's own budgets (a nil field: the saved default).
	Budgets store.SessionBudgets `json:"budgets"`
}

// scratchDir is where sessions without a folder of their own work.
func (c *core) scratchDir() string { return filepath.Join(filepath.Dir(c.db.Path()), "scratch") }

func (c *core) view(s store.Session) Session {
	out := Session{Session: s}
	if out.Provider == "" {
		out.Provider = config.DefaultProvider // sessions made before providers existed
	}
	if s.Workspace != "" {
		if abs, err := filepath.Abs(c.scratchDir()); err == nil {
			out.Scratch = filepath.Dir(s.Workspace) == abs
		}
	}
	return out
}

// scratchWorkspace gives s a folder of its own next to the database.
func (c *core) scratchWorkspace(s store.Session) (store.Session, error) {
	dir, err := filepath.Abs(filepath.Join(c.scratchDir(), s.ID))
	if err != nil {
		return s, fmt.Errorf("create a scratch folder: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s, fmt.Errorf("create a scratch folder: %w", err)
	}
	if err := c.db.SetWorkspace(c.context(), s.ID, dir); err != nil {
		return s, err
	}
	s.Workspace = dir
	return s, nil
}

// workspace acquires the session's workspace; the caller releases it.
func (c *core) workspace(sessionID string) (*tools.Workspace, error) {
	s, err := c.db.GetSession(c.context(), sessionID)
	if err != nil {
		return nil, err
	}
	if s.Workspace == "" {
		return nil, ErrNoWorkspace
	}
	return c.st.Workspaces.Acquire(s.Workspace)
}

// checkFolder accepts "" (no workspace yet) or an existing absolute folder.
func checkFolder(path string) (string, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return "", nil
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%w: the folder must be an absolute path, not %q", ErrInvalidInput, path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: %s is not a folder", ErrInvalidInput, path)
	}
	return filepath.Clean(path), nil
}

// ---- errors

// ErrorCode is what the page branches on when a bound method fails. The page's ErrorCode
// union is generated from these constants (`make types`).
type ErrorCode string

const (
	CodeNotFound      ErrorCode = "not_found"
	CodeBusy          ErrorCode = "busy"
	CodeNotPending    ErrorCode = "not_pending"
	CodeInvalid       ErrorCode = "invalid"
	CodeNotConfigured ErrorCode = "not_configured"
	CodeError         ErrorCode = "error"
)

// ErrorCodes lists every code (the page's ERROR_CODES, generated).
var ErrorCodes = []ErrorCode{CodeNotFound, CodeBusy, CodeNotPending, CodeInvalid, CodeNotConfigured, CodeError}

// ErrInvalidInput is what the services return for input the page should not have sent
// (an empty message, arguments that are not JSON, a relative folder).
var ErrInvalidInput = stack.ErrInvalidInput

// AppError is what every failed bound method rejects with.
type AppError struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
}

// Classify maps a Go error to its code, once, at the boundary.
func Classify(err error) AppError {
	code := CodeError
	switch {
	case errors.Is(err, store.ErrNotFound):
		code = CodeNotFound
	case errors.Is(err, loop.ErrBusy): // the same sentinel as store.ErrSessionBusy
		code = CodeBusy
	case errors.Is(err, tools.ErrNotPending):
		code = CodeNotPending
	case errors.Is(err, ErrInvalidInput), errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrSeqOutOfRange),
		errors.Is(err, store.ErrBadQuery):
		code = CodeInvalid
	case errors.Is(err, ErrNotConfigured):
		code = CodeNotConfigured
	}
	return AppError{Code: code, Message: message(err)}
}

// message is the error's text without the sentinel's own words where they would stutter.
func message(err error) string {
	return strings.TrimPrefix(err.Error(), ErrInvalidInput.Error()+": ")
}

// errBusy says a session is running; it wraps loop.ErrBusy so it classifies as busy.
func errBusy(what string) error {
	return fmt.Errorf("%s: %w: stop it or wait for it to finish", what, loop.ErrBusy)
}
