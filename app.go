package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// EventName is the one Wails event that carries every loop event to the page;
// the payload's "type" field says which (frontend/src/api/events.ts).
const EventName = "loop:event"

// Setting keys kept in the database. The API key is never one of them.
const (
	settingBaseURL = "endpoint.base_url"
	settingModel   = "endpoint.model"
)

// Emitter publishes an event to the page. In the window it is
// runtime.EventsEmit; tests pass a recorder.
type Emitter func(name string, data any)

// App is the Wails-bound facade: thin methods that call backend services and
// return DTOs. Long work runs in goroutines and reports through events.
type App struct {
	db   *store.DB
	keys config.Keys

	mu      sync.Mutex
	ctx     context.Context // app lifetime; cancelled on shutdown
	cancel  context.CancelFunc
	emit    Emitter
	running map[string]context.CancelFunc // session id -> cancel of its run
	wg      sync.WaitGroup
}

// NewApp wires the facade. startup must be called before any bound method.
func NewApp(db *store.DB, keys config.Keys) *App {
	return &App{db: db, keys: keys, running: map[string]context.CancelFunc{}}
}

func (a *App) startup(ctx context.Context, emit Emitter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ctx, a.cancel = context.WithCancel(ctx)
	a.emit = emit
}

// shutdown cancels every run and waits for their rows to be written.
func (a *App) shutdown(context.Context) {
	a.mu.Lock()
	if a.cancel != nil {
		a.cancel()
	}
	a.mu.Unlock()
	a.wg.Wait()
}

// Settings is what the settings screen shows. The key itself never leaves Go.
type Settings struct {
	BaseURL    string `json:"base_url"`
	Model      string `json:"model"`
	HasKey     bool   `json:"has_key"`
	KeySource  string `json:"key_source"` // "", "env" or "file"
	Configured bool   `json:"configured"` // an endpoint and a model are set
}

// SettingsInput is what the settings screen saves. An empty APIKey keeps the
// stored key; ClearKey removes it.
type SettingsInput struct {
	BaseURL  string `json:"base_url"`
	Model    string `json:"model"`
	APIKey   string `json:"api_key"`
	ClearKey bool   `json:"clear_key"`
}

// ConnectionResult is the answer to "Test connection".
type ConnectionResult struct {
	OK     bool     `json:"ok"`
	Models []string `json:"models"`
	Error  string   `json:"error"`
}

// SessionView is one session with its rows, as the conversation shows it.
type SessionView struct {
	Session store.Session `json:"session"`
	Rows    []store.Chunk `json:"rows"`
}

// Presets lists the well-known endpoints.
func (a *App) Presets() []config.Preset { return config.Presets() }

// GetSettings returns the endpoint settings.
func (a *App) GetSettings() (Settings, error) {
	ctx := a.context()
	base, _, err := a.db.GetSetting(ctx, settingBaseURL)
	if err != nil {
		return Settings{}, err
	}
	model, _, err := a.db.GetSetting(ctx, settingModel)
	if err != nil {
		return Settings{}, err
	}
	// Until the person saves settings, the same environment the CLI reads
	// (OPENAI_BASE_URL, LOOPDESK_MODEL) provides them.
	if base == "" {
		base = strings.TrimRight(strings.TrimSpace(os.Getenv("OPENAI_BASE_URL")), "/")
	}
	if model == "" {
		model = strings.TrimSpace(os.Getenv("LOOPDESK_MODEL"))
	}
	key, src, err := a.keys.Key()
	if err != nil {
		return Settings{}, err
	}
	return Settings{
		BaseURL: base, Model: model,
		HasKey: key != "", KeySource: string(src),
		Configured: base != "" && model != "",
	}, nil
}

// SaveSettings stores the endpoint in the database and the key in the key file.
func (a *App) SaveSettings(in SettingsInput) (Settings, error) {
	ctx := a.context()
	base := strings.TrimRight(strings.TrimSpace(in.BaseURL), "/")
	if err := checkBaseURL(base); err != nil {
		return Settings{}, err
	}
	model := strings.TrimSpace(in.Model)
	if model == "" {
		return Settings{}, errors.New("choose a model")
	}
	switch {
	case in.ClearKey:
		if err := a.keys.SetKey(""); err != nil {
			return Settings{}, err
		}
	case strings.TrimSpace(in.APIKey) != "":
		if err := a.keys.SetKey(in.APIKey); err != nil {
			return Settings{}, err
		}
	}
	if err := a.db.SetSetting(ctx, settingBaseURL, base); err != nil {
		return Settings{}, err
	}
	if err := a.db.SetSetting(ctx, settingModel, model); err != nil {
		return Settings{}, err
	}
	return a.GetSettings()
}

// TestConnection asks baseURL for its model list (GET /models) and reports
// success or the exact failure. An empty apiKey uses the stored key.
func (a *App) TestConnection(baseURL, apiKey string) ConnectionResult {
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	if err := checkBaseURL(base); err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	if strings.TrimSpace(apiKey) == "" {
		key, _, err := a.keys.Key()
		if err != nil {
			return ConnectionResult{Error: err.Error()}
		}
		apiKey = key
	}
	ctx, cancel := context.WithTimeout(a.context(), 10*time.Second)
	defer cancel()
	client := provider.New(provider.Config{BaseURL: base, APIKey: strings.TrimSpace(apiKey), RequestTimeout: 10 * time.Second})
	models, err := client.ListModels(ctx)
	if err != nil {
		return ConnectionResult{Error: err.Error()}
	}
	return ConnectionResult{OK: true, Models: models}
}

func checkBaseURL(base string) error {
	if base == "" {
		return errors.New("enter the endpoint's base URL, e.g. http://localhost:11434/v1")
	}
	req, err := http.NewRequest(http.MethodGet, base, nil)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", base)
	}
	return nil
}

// ListSessions returns every session, most recently updated first.
func (a *App) ListSessions() ([]store.Session, error) {
	return a.db.ListSessions(a.context())
}

// NewSession creates an empty session.
func (a *App) NewSession() (store.Session, error) {
	ctx := a.context()
	model, _, err := a.db.GetSetting(ctx, settingModel)
	if err != nil {
		return store.Session{}, err
	}
	return a.db.CreateSession(ctx, store.NewSession{Title: "New session", Model: model})
}

// OpenSession returns a session and all its rows.
func (a *App) OpenSession(id string) (SessionView, error) {
	ctx := a.context()
	s, err := a.db.GetSession(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	rows, err := a.db.Chunks(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	return SessionView{Session: s, Rows: rows}, nil
}

var errBusy = errors.New("this session is already running; stop it or wait for it to finish")

// SendMessage stores text as a user row and starts a run that streams the
// model's reply as events. It returns as soon as the user row is stored.
func (a *App) SendMessage(sessionID, text string) (string, error) {
	ctx := a.context()
	text = strings.TrimSpace(text)
	if text == "" {
		return "", errors.New("the message is empty")
	}
	set, err := a.GetSettings()
	if err != nil {
		return "", err
	}
	if !set.Configured {
		return "", errors.New("no endpoint is configured: open Settings and choose one")
	}
	key, _, err := a.keys.Key()
	if err != nil {
		return "", err
	}
	sess, err := a.db.GetSession(ctx, sessionID)
	if err != nil {
		return "", err
	}
	runID := newID()
	runCtx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	if a.running[sessionID] != nil {
		a.mu.Unlock()
		cancel()
		return "", errBusy
	}
	a.running[sessionID] = cancel
	a.wg.Add(1)
	a.mu.Unlock()

	release := func() {
		a.mu.Lock()
		delete(a.running, sessionID)
		a.mu.Unlock()
		cancel()
		a.wg.Done()
	}
	if _, err := a.db.Append(ctx, sessionID, runID, store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: text}}); err != nil {
		release()
		return "", err
	}
	if sess.Title == "" || sess.Title == "New session" {
		_ = a.db.RenameSession(ctx, sessionID, titleFrom(text))
	}
	client := provider.New(provider.Config{BaseURL: set.BaseURL, APIKey: key, Model: set.Model,
		RequestTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxRetries: 2})
	go func() {
		defer release()
		a.stream(runCtx, client, set.Model, sessionID, runID)
	}()
	return runID, nil
}

// stream is the walking skeleton's one-turn run: rows -> messages -> model,
// streaming text deltas to the page, then the assistant row.
func (a *App) stream(ctx context.Context, client *provider.Client, model, sessionID, runID string) {
	var seq int64
	send := func(ev map[string]any) {
		seq++
		ev["session_id"], ev["run_id"], ev["seq"] = sessionID, runID, seq
		a.emit(EventName, ev)
	}
	finish := func(status, output, errText string) {
		send(map[string]any{"type": "run_finished", "status": status, "output": output, "error": errText})
	}
	send(map[string]any{"type": "run_started"})
	rows, err := a.db.Chunks(ctx, sessionID)
	if err != nil {
		finish("provider_error", "", err.Error())
		return
	}
	msgs, err := store.Messages(rows)
	if err != nil {
		finish("provider_error", "", err.Error())
		return
	}
	resp, err := client.Stream(ctx, provider.Request{Model: model, Messages: msgs}, provider.Handler{
		OnText:      func(d string) { send(map[string]any{"type": "text_delta", "text": d}) },
		OnReasoning: func(d string) { send(map[string]any{"type": "reasoning_delta", "text": d}) },
	})
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil && resp.Err != nil {
		err = resp.Err
	}
	// Whatever arrived is kept: a partial answer is still the person's data.
	if resp.Text != "" || resp.Reasoning != "" {
		// Store with a fresh context so a cancel does not lose the partial text.
		if _, aerr := a.db.Append(context.WithoutCancel(ctx), sessionID, runID, store.NewChunk{Kind: store.KindAssistant,
			Payload: store.AssistantPayload{Text: resp.Text, Reasoning: resp.Reasoning}}); aerr != nil && err == nil {
			err = aerr
		}
		send(map[string]any{"type": "assistant_message", "text": resp.Text, "reasoning": resp.Reasoning})
	}
	switch {
	case errors.Is(err, context.Canceled):
		finish("cancelled", resp.Text, "")
	case err != nil:
		finish("provider_error", resp.Text, err.Error())
	case resp.Status != "" && resp.Status != provider.StatusOK:
		finish(string(resp.Status), resp.Text, "")
	default:
		finish("completed", resp.Text, "")
	}
}

func titleFrom(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:60]) + "…"
	}
	return t
}

// Cancel stops the session's run, if one is going.
func (a *App) Cancel(sessionID string) {
	a.mu.Lock()
	cancel := a.running[sessionID]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// context returns the app's lifetime context (Background before startup, so
// bound methods called from Go tests work too).
func (a *App) context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// appError is what every failed bound method returns to the page.
type appError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// formatError maps Go errors to {code, message} once, at the boundary.
func formatError(err error) any {
	code := "error"
	switch {
	case errors.Is(err, store.ErrNotFound):
		code = "not_found"
	case errors.Is(err, errBusy):
		code = "busy"
	}
	return appError{Code: code, Message: err.Error()}
}

// securityHeaders adds a strict Content-Security-Policy to every asset: the
// page may load only its own scripts, styles and images, and talk only to
// its own origin (the dev server's websocket included). Nothing the model or
// a tool writes can pull in a script, a frame or a remote image.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; " +
	"base-uri 'none'; frame-src 'none'; form-action 'none'"
