package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// EventName is the one Wails event that carries every loop event to the page;
// the payload's "type" field says which (frontend/src/api/events.ts).
const EventName = "loop:event"

// Emitter publishes an event to the page. In the window it is
// runtime.EventsEmit; tests pass a recorder.
type Emitter func(name string, data any)

// Dialogs are the native dialogs; main.go passes Wails' runtime, tests a fake.
type Dialogs interface {
	ChooseFolder(title string) (string, error)
	SaveFile(title, defaultName string) (string, error)
}

// App is the Wails-bound facade: thin methods that call backend services and
// return DTOs. Long work (a run) goes to the runner and reports through events.
// Nothing here trusts the page: approvals are decided by the Approver, which
// only accepts answers for calls it is waiting on.
type App struct {
	db         *store.DB
	settings   desktop.SettingsStore
	registry   *tools.Registry
	workspaces *tools.Manager
	approver   *tools.Approver
	runner     *loop.Runner
	watches    *desktop.Watches
	dialogs    Dialogs

	mu     sync.Mutex
	ctx    context.Context // app lifetime; cancelled on shutdown
	cancel context.CancelFunc
}

// NewApp wires the facade. startup must be called before any bound method
// that runs something.
func NewApp(db *store.DB, keys config.Keys, dialogs Dialogs) (*App, error) {
	reg, err := tools.NewRegistry(tools.Builtins()...)
	if err != nil {
		return nil, err
	}
	a := &App{
		db:         db,
		settings:   desktop.SettingsStore{DB: db, Keys: keys},
		registry:   reg,
		workspaces: tools.NewManager(),
		watches:    &desktop.Watches{},
		dialogs:    dialogs,
		ctx:        context.Background(),
	}
	a.approver = tools.NewApprover(loop.StoreRules{DB: db}, func(p tools.Pending) { a.runner.ApprovalRequested(p) })
	a.runner = loop.New(loop.Config{
		Store:      db,
		Model:      &desktop.Model{Settings: a.settings},
		Approver:   a.approver,
		Tools:      reg,
		Workspaces: a.workspaces,
	})
	return a, nil
}

// startup starts forwarding loop and workspace events to the page.
func (a *App) startup(ctx context.Context, emit Emitter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ctx, a.cancel = context.WithCancel(ctx)
	a.watches.Emit = emit
	a.runner.Bus().Subscribe(a.ctx, "", func(ev loop.Event) { emit(EventName, ev) })
}

// shutdown cancels every run and waits until their rows are written.
func (a *App) shutdown(context.Context) {
	a.runner.Close()
	a.watches.Close()
	a.mu.Lock()
	if a.cancel != nil {
		a.cancel()
	}
	a.mu.Unlock()
}

func (a *App) context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}

// ---- settings

// ConnectionResult is the answer to "Test connection".
type ConnectionResult struct {
	OK     bool     `json:"ok"`
	Models []string `json:"models"`
	Error  string   `json:"error"`
}

// Presets lists the well-known endpoints.
func (a *App) Presets() []config.Preset { return config.Presets() }

// GetSettings returns the settings; the key itself never leaves Go.
func (a *App) GetSettings() (desktop.Settings, error) { return a.settings.Load(a.context()) }

// SaveSettings validates and stores the settings; the key goes to the key file.
func (a *App) SaveSettings(in desktop.SettingsInput) (desktop.Settings, error) {
	return a.settings.Save(a.context(), in)
}

// TestConnection asks baseURL for its model list (GET /models) and reports
// success or the exact failure. An empty apiKey uses the saved key.
func (a *App) TestConnection(baseURL, apiKey string) ConnectionResult {
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if err := desktop.CheckBaseURL(base); err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	if strings.TrimSpace(apiKey) == "" {
		key, _, err := a.settings.Keys.Key()
		if err != nil {
			return ConnectionResult{Error: err.Error()}
		}
		apiKey = key
	}
	ctx, cancel := context.WithTimeout(a.context(), 10*time.Second)
	defer cancel()
	c := provider.New(provider.Config{BaseURL: base, APIKey: strings.TrimSpace(apiKey), RequestTimeout: 10 * time.Second})
	models, err := c.ListModels(ctx)
	if err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	return ConnectionResult{OK: true, Models: models}
}

// ListRules returns every saved approval rule.
func (a *App) ListRules() ([]store.Rule, error) { return a.db.ListAllRules(a.context()) }

// AddRule saves an approval rule for the session or its workspace.
func (a *App) AddRule(in desktop.RuleInput) (store.Rule, error) {
	ctx := a.context()
	s, err := a.db.GetSession(ctx, in.SessionID)
	if err != nil {
		return store.Rule{}, err
	}
	if in.Scope == string(store.ScopeWorkspace) {
		// Workspace rules match the root the runner uses: symlinks resolved.
		ws, err := a.workspace(s.ID)
		if err != nil {
			return store.Rule{}, err
		}
		s.Workspace = ws.Root()
		ws.Release()
	}
	return a.db.AddRule(ctx, desktop.NewRule(in, s))
}

// DeleteRule removes a rule.
func (a *App) DeleteRule(id string) error { return a.db.DeleteRule(a.context(), id) }

// ---- sessions

// SessionSummary is a session in the list.
type SessionSummary struct {
	store.Session
	Running bool `json:"running"`
}

// Row is one chunk as the page shows it, with its size in tokens (estimated).
type Row struct {
	store.Chunk
	Tokens int64 `json:"tokens"`
}

// PendingApproval is a tool call waiting for the person.
type PendingApproval struct {
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	ReadOnly  bool   `json:"read_only"`
}

// SessionView is one session with everything the window shows of it.
type SessionView struct {
	Session      store.Session     `json:"session"`
	Rows         []Row             `json:"rows"`
	Runs         []store.Run       `json:"runs"`
	Pending      []PendingApproval `json:"pending"`
	RunningRunID string            `json:"running_run_id"`
}

// ListSessions returns every session, most recently updated first.
func (a *App) ListSessions() ([]SessionSummary, error) {
	ss, err := a.db.ListSessions(a.context())
	if err != nil {
		return nil, err
	}
	out := make([]SessionSummary, len(ss))
	for i, s := range ss {
		_, running := a.runner.Running(s.ID)
		out[i] = SessionSummary{Session: s, Running: running}
	}
	return out, nil
}

// NewSession creates an empty session working in workspace ("" for none yet).
func (a *App) NewSession(workspace string) (store.Session, error) {
	ctx := a.context()
	set, err := a.settings.Load(ctx)
	if err != nil {
		return store.Session{}, err
	}
	if workspace, err = checkFolder(workspace); err != nil {
		return store.Session{}, err
	}
	return a.db.CreateSession(ctx, store.NewSession{Title: "New session", Workspace: workspace, Model: set.Model})
}

// RenameSession changes a session's title.
func (a *App) RenameSession(id, title string) error {
	return a.db.RenameSession(a.context(), id, title)
}

// DeleteSession deletes a session; its forks keep their rows. A running
// session must be stopped first.
func (a *App) DeleteSession(id string) error {
	if _, running := a.runner.Running(id); running {
		return errBusy
	}
	return a.db.DeleteSession(a.context(), id)
}

// ForkSession makes a new session from the rows up to and including seq.
func (a *App) ForkSession(id string, seq int64) (store.Session, error) {
	return a.db.Fork(a.context(), id, seq)
}

// SearchSessions searches every session's rows (FTS5 query syntax).
func (a *App) SearchSessions(query string) ([]store.Hit, error) {
	if strings.TrimSpace(query) == "" {
		return []store.Hit{}, nil
	}
	return a.db.Search(a.context(), query, 50)
}

// ExportSession writes the session as JSON Lines to a file the person picks.
// It returns the path written, or "" when the dialog was cancelled.
func (a *App) ExportSession(id string) (string, error) {
	ctx := a.context()
	s, err := a.db.GetSession(ctx, id)
	if err != nil {
		return "", err
	}
	path, err := a.dialogs.SaveFile("Export session", exportName(s))
	if err != nil || path == "" {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".loopdesk-export-*")
	if err != nil {
		return "", fmt.Errorf("export session: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := a.db.Export(ctx, id, tmp); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("export session: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("export session: %w", err)
	}
	return path, nil
}

func exportName(s store.Session) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '-'
		}
		return r
	}, s.Title)
	if r := []rune(name); len(r) > 40 {
		name = string(r[:40])
	}
	return fmt.Sprintf("%s (%s).jsonl", strings.TrimSpace(name), s.ID)
}

// OpenSession returns a session with its rows, runs and pending approvals,
// and starts watching its workspace for the file tree.
func (a *App) OpenSession(id string) (SessionView, error) {
	ctx := a.context()
	s, err := a.db.GetSession(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	chunks, err := a.db.Chunks(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	runs, err := a.db.ListRuns(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	v := SessionView{Session: s, Rows: make([]Row, len(chunks)), Runs: runs, Pending: a.pending(id)}
	if v.Runs == nil {
		v.Runs = []store.Run{}
	}
	for i, c := range chunks {
		v.Rows[i] = Row{Chunk: c, Tokens: loop.EstimateTokens(string(c.Payload))}
	}
	v.RunningRunID, _ = a.runner.Running(id)
	if s.Workspace != "" {
		// A folder that vanished still opens the session; the tree says why.
		_ = a.watches.Show(ctx, s.Workspace)
	}
	return v, nil
}

// ---- chat and approvals

var errBusy = errors.New("this session is running; stop it or wait for it to finish")

// SendMessage starts a run of the session with text as the prompt, using the
// saved model, approval mode and budgets. It returns the run id once the run
// is recorded; everything else arrives as events.
func (a *App) SendMessage(sessionID, text string) (string, error) {
	ctx := a.context()
	text = strings.TrimSpace(text)
	if text == "" {
		return "", errors.New("the message is empty")
	}
	set, err := a.settings.Load(ctx)
	if err != nil {
		return "", err
	}
	if !set.Configured {
		return "", desktop.ErrNotConfigured
	}
	s, err := a.db.GetSession(ctx, sessionID)
	if err != nil {
		return "", err
	}
	if s.Workspace == "" {
		// A session whose person chose no folder works in an empty scratch
		// folder of its own, so its file tools still have a confined root.
		if s, err = a.scratchWorkspace(s); err != nil {
			return "", err
		}
	}
	spec := set.RunSpec(sessionID, s.Workspace, text)
	runID, err := a.runner.Start(ctx, spec)
	if err != nil {
		return "", err
	}
	if s.Title == "" || s.Title == "New session" {
		_ = a.db.RenameSession(ctx, sessionID, titleFrom(text))
	}
	return runID, nil
}

// Cancel stops the session's run, if one is going.
func (a *App) Cancel(sessionID string) { a.runner.Cancel(sessionID) }

// PendingApprovals lists the session's calls waiting for the person.
func (a *App) PendingApprovals(sessionID string) []PendingApproval { return a.pending(sessionID) }

func (a *App) pending(sessionID string) []PendingApproval {
	ps := a.approver.Pending(sessionID)
	out := make([]PendingApproval, len(ps))
	for i, p := range ps {
		out[i] = PendingApproval{CallID: p.Call.ID, Name: p.Call.Name, Arguments: p.Call.Arguments, ReadOnly: p.ReadOnly}
	}
	return out
}

// DecisionInput is the person's answer to one pending call.
type DecisionInput struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason"`
	// Arguments, when not empty, replace the call's arguments: the edited call
	// is what runs and what is recorded. They are validated again before running.
	Arguments string `json:"arguments"`
	// Always, when set, is saved as an allow rule before the call is approved.
	Always *desktop.RuleInput `json:"always"`
}

// Decide answers a pending call. It is refused unless that exact call of that
// session is waiting; the first answer wins.
func (a *App) Decide(sessionID, callID string, in DecisionInput) error {
	var call *PendingApproval
	for _, p := range a.pending(sessionID) {
		if p.CallID == callID {
			call = &p
			break
		}
	}
	if call == nil {
		return fmt.Errorf("decide call %s: %w", callID, tools.ErrNotPending)
	}
	d := tools.Decision{Approved: in.Approved, By: tools.ByPerson, Reason: strings.TrimSpace(in.Reason), Arguments: call.Arguments}
	if args := strings.TrimSpace(in.Arguments); args != "" && in.Approved {
		if !json.Valid([]byte(args)) {
			return errors.New("the edited arguments are not valid JSON")
		}
		d.Arguments = args
	}
	if in.Always != nil && in.Approved {
		rule := *in.Always
		rule.SessionID, rule.Effect = sessionID, string(store.EffectAllow)
		if rule.Tool != call.Name {
			return fmt.Errorf("the rule is for %q but the call is %q", rule.Tool, call.Name)
		}
		r, err := a.AddRule(rule)
		if err != nil {
			return err
		}
		if d.Reason == "" {
			d.Reason = "always allow (rule " + r.ID + ")"
		}
	}
	return a.approver.Decide(sessionID, callID, d)
}

// SuggestRule is the rule "Always allow" would save for a pending call.
func (a *App) SuggestRule(sessionID, callID string) (desktop.RuleInput, error) {
	for _, p := range a.approver.Pending(sessionID) {
		if p.Call.ID == callID {
			return desktop.SuggestRule(sessionID, p.Call), nil
		}
	}
	return desktop.RuleInput{}, fmt.Errorf("suggest a rule for call %s: %w", callID, tools.ErrNotPending)
}

func titleFrom(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:60]) + "…"
	}
	return t
}

// ---- workspace

// ChooseFolder opens the native folder picker; "" when cancelled.
func (a *App) ChooseFolder() (string, error) {
	return a.dialogs.ChooseFolder("Choose the workspace folder")
}

// SetWorkspace points the session at a folder; later runs work in it.
func (a *App) SetWorkspace(sessionID, path string) (store.Session, error) {
	ctx := a.context()
	if _, running := a.runner.Running(sessionID); running {
		return store.Session{}, errBusy
	}
	path, err := checkFolder(path)
	if err != nil {
		return store.Session{}, err
	}
	if err := a.db.SetWorkspace(ctx, sessionID, path); err != nil {
		return store.Session{}, err
	}
	if path != "" {
		_ = a.watches.Show(ctx, path)
	}
	return a.db.GetSession(ctx, sessionID)
}

// ListFiles lists the session's workspace as the file tools see it.
func (a *App) ListFiles(sessionID string) ([]desktop.FileEntry, error) {
	ws, err := a.workspace(sessionID)
	if err != nil {
		return nil, err
	}
	defer ws.Release()
	return desktop.ListFiles(a.context(), ws)
}

// ReadFile previews a file of the session's workspace; paths leading
// outside the workspace are refused.
func (a *App) ReadFile(sessionID, path string) (desktop.FilePreview, error) {
	ws, err := a.workspace(sessionID)
	if err != nil {
		return desktop.FilePreview{}, err
	}
	defer ws.Release()
	return desktop.ReadFile(ws, path)
}

// TouchedFiles lists the files the session's tool calls read or changed,
// each linked to the row holding the call.
func (a *App) TouchedFiles(sessionID string) ([]desktop.Touched, error) {
	ctx := a.context()
	rows, err := a.db.Chunks(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	ws, err := a.workspace(sessionID)
	if err != nil {
		return desktop.TouchedFiles(rows, nil), nil
	}
	defer ws.Release()
	return desktop.TouchedFiles(rows, func(p string) string {
		abs, err := ws.Resolve(p)
		if err != nil {
			return ""
		}
		return ws.Rel(abs)
	}), nil
}

// workspace acquires the session's workspace; the caller releases it.
func (a *App) workspace(sessionID string) (*tools.Workspace, error) {
	s, err := a.db.GetSession(a.context(), sessionID)
	if err != nil {
		return nil, err
	}
	if s.Workspace == "" {
		return nil, desktop.ErrNoWorkspace
	}
	return a.workspaces.Acquire(s.Workspace)
}

// scratchWorkspace gives s a folder of its own next to the database.
func (a *App) scratchWorkspace(s store.Session) (store.Session, error) {
	dir := filepath.Join(filepath.Dir(a.db.Path()), "scratch", s.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s, fmt.Errorf("create a scratch workspace: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return s, err
	}
	if err := a.db.SetWorkspace(a.context(), s.ID, abs); err != nil {
		return s, err
	}
	s.Workspace = abs
	return s, nil
}

// checkFolder accepts "" (no workspace yet) or an existing absolute folder.
func checkFolder(path string) (string, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return "", nil
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("the workspace must be an absolute path, not %q", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a folder", path)
	}
	return filepath.Clean(path), nil
}
