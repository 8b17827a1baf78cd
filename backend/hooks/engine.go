package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Input is one event as the runner sees it. Fields that do not apply to Event stay empty.
type Input struct {
	Event          Event
	SessionID      string
	Workspace      string // the folder: the hooks' working directory and "cwd"
	PermissionMode string // the session's approval mode ("plan" in plan mode)
	Prompt         string // UserPromptSubmit
	// Tool, Arguments and CallID: PreToolUse and PostToolUse. Arguments are the raw
	// arguments the model sent; Result is the tool's answer (PostToolUse).
	Tool      string
	Arguments string
	CallID    string
	Result    *ToolResponse
	Source    string // SessionStart: new, resume or fork
	Active    bool   // Stop: the run already goes on because of a Stop hook (stop_hook_active)
	Trigger   string // PreCompact: manual or auto
	Message   string // Notification
}

// PermissionMode is a session's approval mode as hooks read it (Input.PermissionMode):
// "plan" in plan mode, else the approval mode.
func PermissionMode(mode string, plan bool) string {
	if plan {
		return "plan"
	}
	return mode
}

// ToolResponse is what PostToolUse hooks read as tool_response.
type ToolResponse struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

// Decisions of a PreToolUse outcome.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
	// Block: UserPromptSubmit (not sent), PostToolUse (the reason reaches the model),
	// Stop (the run goes on with the reason).
	Block = "block"
)

// Outcome is what the hooks of one event decided together. Decision is "" when no hook
// decided anything: the event goes on as without hooks.
type Outcome struct {
	Decision string
	Reason   string
	// UpdatedInput (PreToolUse) is the arguments a hook replaced the call's with, in the
	// tool's own field names and not yet validated: the tool validates them before it runs.
	UpdatedInput string
	// Context is what reaches the model next, framed as Loopdesk's note: additionalContext,
	// and the plain output of UserPromptSubmit and SessionStart hooks.
	Context []string
	// SystemMessages and Warnings are for the person (a hook's systemMessage; a hook of an
	// event that fails open failing), never for the model.
	SystemMessages []string
	Warnings       []string
	// Stop: a hook said "continue": false; StopReason is its stopReason.
	Stop       bool
	StopReason string
	// Runs records every hook that ran, one row each.
	Runs []store.HookPayload
}

// TrustStore is where trust in a folder's project hooks is kept (*store.DB).
type TrustStore interface {
	HookTrustOf(ctx context.Context, workspace string) (store.HookTrust, error)
}

// RowSource reads a session's rows for the transcript hooks get (*store.DB): the rows its
// next request is built from (the rows since its last compaction, with the summary and
// system rows), so a long session's hooks never wait for all of its rows to be written.
type RowSource interface {
	RequestRows(ctx context.Context, sessionID string) ([]store.Chunk, error)
}

// Engine runs the hooks that apply to a folder. It reads the configuration afresh for each
// event, so an edit takes effect (and untrusts project hooks) at once. Safe for concurrent use.
type Engine struct {
	// PersonalDir is the loopdesk config folder holding the personal hooks.json; "" for none.
	PersonalDir string
	Trust       TrustStore // nil: project hooks never run
	Rows        RowSource  // nil: transcript_path names an empty file
	Logger      *slog.Logger
	// OnSkipped, when not nil, is told once per folder and configuration hash that project
	// hooks were skipped because they are not trusted (the CLI says so on stderr).
	OnSkipped func(workspace string, skipped []Hook)

	mu   sync.Mutex
	told map[string]bool
}

// Active returns the hooks that run in workspace: the personal ones, and the project ones
// when the person trusts the folder's current configuration. errs are configuration files
// that could not be used (each names its file).
func (e *Engine) Active(ctx context.Context, workspace string) ([]Hook, []error) {
	cfg, errs := Load(e.PersonalDir, workspace)
	trusted, err := e.trusted(ctx, workspace, cfg)
	if err != nil {
		errs = append(errs, err)
	}
	var out []Hook
	for _, h := range cfg.Hooks {
		if h.Source == Personal || trusted {
			out = append(out, h)
		}
	}
	if !trusted && cfg.SHA256 != "" && e.OnSkipped != nil && e.tell(workspace+"\x00"+cfg.SHA256) {
		e.OnSkipped(workspace, cfg.ProjectHooks())
	}
	return out, errs
}

func (e *Engine) trusted(ctx context.Context, workspace string, cfg Config) (bool, error) {
	if cfg.SHA256 == "" || e.Trust == nil {
		return false, nil
	}
	t, err := e.Trust.HookTrustOf(ctx, workspace)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("project hooks skipped: %w", err)
	}
	return t.SHA256 == cfg.SHA256, nil
}

func (e *Engine) tell(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.told == nil {
		e.told = map[string]bool{}
	}
	if e.told[key] {
		return false
	}
	e.told[key] = true
	return true
}

// Fire runs every active hook matching in, in parallel, each under its own timeout, and
// combines their answers (see the package doc). It returns when the last one ends; it never
// waits longer than the longest timeout (plus the moment a killed group takes to go).
func (e *Engine) Fire(ctx context.Context, in Input) Outcome {
	active, errs := e.Active(ctx, in.Workspace)
	var out Outcome
	for _, err := range errs {
		out.Warnings = append(out.Warnings, err.Error())
		e.logger().Warn("hook configuration", "err", err)
	}
	matched := selectHooks(active, in)
	if len(matched) == 0 {
		return out
	}
	transcript, cleanup := e.transcript(ctx, in.SessionID)
	defer cleanup()
	stdin, err := json.Marshal(wireInput(in, transcript))
	if err != nil { // only strings and raw JSON: cannot happen; fail closed all the same
		stdin = []byte("{}")
	}
	results := make([]answer, len(matched))
	var wg sync.WaitGroup
	for i, h := range matched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = interpret(in, h, execute(ctx, h, in.Workspace, stdin))
		}()
	}
	wg.Wait()
	return combine(in, out, results)
}

// selectHooks picks the hooks of in.Event that match it, once per distinct command (Claude
// Code runs a command configured twice once).
func selectHooks(active []Hook, in Input) []Hook {
	var out []Hook
	seen := map[string]bool{}
	for _, h := range active {
		if h.Event != in.Event || seen[h.Command] || !matches(h, in) {
			continue
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}

func matches(h Hook, in Input) bool {
	switch in.Event {
	case PreToolUse, PostToolUse:
		return Matches(h.Matcher, in.Tool, ClaudeName(in.Tool))
	case SessionStart:
		return Matches(h.Matcher, in.Source)
	case PreCompact:
		return Matches(h.Matcher, in.Trigger)
	}
	return true
}

// transcript writes the session's rows the model is sent (RowSource) as JSON Lines to a
// temporary file for the hooks to read; cleanup removes it once they are done.
func (e *Engine) transcript(ctx context.Context, sessionID string) (string, func()) {
	f, err := os.CreateTemp("", "loopdesk-transcript-*.jsonl")
	if err != nil {
		e.logger().Warn("hook transcript not written", "err", err)
		return "", func() {}
	}
	defer f.Close()
	if e.Rows != nil && sessionID != "" {
		rows, err := e.Rows.RequestRows(ctx, sessionID)
		if err != nil {
			e.logger().Warn("hook transcript left empty", "session", sessionID, "err", err)
		}
		enc := json.NewEncoder(f)
		for _, r := range rows {
			_ = enc.Encode(r) // a full disk leaves the hooks a shorter transcript
		}
	}
	return f.Name(), func() { _ = os.Remove(f.Name()) }
}

func (e *Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}

// wireInput is the JSON object a hook reads on standard input, in Claude Code's field names.
func wireInput(in Input, transcript string) map[string]any {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": transcript,
		"cwd":             in.Workspace,
		"permission_mode": in.PermissionMode,
		"hook_event_name": string(in.Event),
	}
	switch in.Event {
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case PreToolUse, PostToolUse:
		name := in.Tool
		if c := ClaudeName(in.Tool); c != "" {
			name = c
		}
		m["tool_name"] = name
		m["loopdesk_tool_name"] = in.Tool
		m["tool_input"] = claudeInput(in.Tool, in.Arguments)
		m["tool_use_id"] = in.CallID
		if in.Event == PostToolUse && in.Result != nil {
			m["tool_response"] = in.Result
		}
	case SessionStart:
		m["source"] = in.Source
	case Stop, SubagentStop:
		m["stop_hook_active"] = in.Active
	case PreCompact:
		m["trigger"] = in.Trigger
	case Notification:
		m["message"] = in.Message
	}
	return m
}

// durationMS rounds up, so a hook that ran is never recorded as taking no time.
func durationMS(d time.Duration) int64 {
	return (d + time.Millisecond - 1).Milliseconds()
}
