package desktop

import (
	"fmt"
	"os"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Hooks, skills and slash commands in the window: Settings → Hooks with the trust prompt,
// and the "/" palette of the message box (docs/hooks.md, docs/skills.md).

// HookView is one configured hook.
type HookView struct {
	Event          string  `json:"event"`
	Matcher        string  `json:"matcher"`
	Command        string  `json:"command"`
	Source         string  `json:"source"` // personal or project
	File           string  `json:"file"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	IgnoreFailure  bool    `json:"ignore_failure"`
	Trusted        bool    `json:"trusted"`
}

// HooksView is Settings → Hooks for one session's folder.
type HooksView struct {
	Workspace string     `json:"workspace"`
	Hooks     []HookView `json:"hooks"`
	// SHA256 is the hash of the folder's project hook configuration ("" when it has none);
	// Trusted says the person trusted exactly it. Changed: an earlier configuration was
	// trusted, and Diff shows what changed since.
	SHA256  string          `json:"sha256"`
	Trusted bool            `json:"trusted"`
	Changed bool            `json:"changed"`
	Diff    string          `json:"diff"`
	Errors  []string        `json:"errors"`
	Recent  []store.HookRun `json:"recent"`
}

// recentHookRuns is how many hook runs Settings → Hooks shows.
const recentHookRuns = 20

// Hooks lists every hook that applies in the session's folder, by source, with the trust
// state of the project hooks and the latest hook runs in that folder.
func (h *Settings) Hooks(sessionID string) (HooksView, error) {
	c := h.c
	ctx := c.context()
	s, err := c.db.GetSession(ctx, sessionID)
	if err != nil {
		return HooksView{}, err
	}
	v := HooksView{Workspace: s.Workspace, Hooks: []HookView{}, Errors: []string{}, Recent: []store.HookRun{}}
	if s.Workspace == "" {
		return v, nil
	}
	if f, err := hooks.Folder(s.Workspace); err == nil {
		v.Workspace = f
	}
	cfg, errs := hooks.Load(c.instructionsDir, v.Workspace)
	st, more := hooks.State(ctx, c.db, v.Workspace)
	for _, e := range append(errs, more...) {
		v.Errors = append(v.Errors, e.Error())
	}
	v.SHA256, v.Trusted, v.Changed, v.Diff = st.SHA256, st.Trusted, st.Changed, st.Diff
	for _, x := range cfg.Hooks {
		v.Hooks = append(v.Hooks, HookView{Event: string(x.Event), Matcher: x.Matcher, Command: x.Command, Source: string(x.Source),
			File: x.File, TimeoutSeconds: x.Timeout.Seconds(), IgnoreFailure: x.IgnoreFailure, Trusted: x.Source == hooks.Personal || st.Trusted})
	}
	if v.Recent, err = c.db.RecentHookRuns(ctx, v.Workspace, recentHookRuns); err != nil {
		return HooksView{}, err
	}
	return v, nil
}

// TrustHooks trusts the project hooks of the session's folder as the person saw them:
// sha256 is the hash shown; if the files changed since, nothing is trusted and the error
// says to review them again.
func (h *Settings) TrustHooks(sessionID, sha256 string) (HooksView, error) {
	s, err := h.c.db.GetSession(h.c.context(), sessionID)
	if err != nil {
		return HooksView{}, err
	}
	if sha256 == "" {
		return HooksView{}, fmt.Errorf("%w: the hash of the hooks being trusted is required", ErrInvalidInput)
	}
	if _, err := hooks.Trust(h.c.context(), h.c.db, s.Workspace, sha256); err != nil {
		return HooksView{}, err
	}
	return h.Hooks(sessionID)
}

// PaletteEntry is one entry of the "/" palette: a command template or a skill. Error says
// why an entry cannot be sent ("" when it can).
type PaletteEntry struct {
	Kind         PaletteKind `json:"kind"`
	Name         string      `json:"name"`
	Description  string      `json:"description"`
	ArgumentHint string      `json:"argument_hint"`
	Path         string      `json:"path"`
	Error        string      `json:"error"`
}

// PaletteKind is what a palette entry sends: a command template or a skill; or, for a view,
// a view of the window it opens instead of sending (the window adds those entries itself).
type PaletteKind string

// Palette entry kinds.
const (
	PaletteCommand PaletteKind = "command"
	PaletteSkill   PaletteKind = "skill"
	PaletteView    PaletteKind = "view"
)

// Palette lists the command templates and skills of the session's folder and the person's own.
func (h *Chat) Palette(sessionID string) ([]PaletteEntry, error) {
	s, err := h.c.db.GetSession(h.c.context(), sessionID)
	if err != nil {
		return nil, err
	}
	out := []PaletteEntry{}
	for _, c := range agents.Commands(h.c.instructionsDir, s.Workspace) {
		out = append(out, PaletteEntry{Kind: PaletteCommand, Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Path: c.Path, Error: c.Error})
	}
	for _, k := range agents.Skills(h.c.instructionsDir, s.Workspace) {
		out = append(out, PaletteEntry{Kind: PaletteSkill, Name: k.Name, Description: k.Description, Path: k.Path, Error: k.Error})
	}
	return out, nil
}

// SendCommand sends /name args: a command template's body with $ARGUMENTS replaced, or a
// skill's instructions followed by args. The run's user row records "/name". While a run is
// going, the expanded text is queued like any message.
func (h *Chat) SendCommand(sessionID, name, args string) (string, error) {
	text, err := h.expand(sessionID, strings.TrimPrefix(name, "/"), args)
	if err != nil {
		return "", err
	}
	if _, running := h.c.st.Runner.Running(sessionID); running {
		return h.SendMessage(sessionID, text)
	}
	return h.c.start(sessionID, func(spec *loop.RunSpec) { spec.Prompt, spec.Command = text, "/"+strings.TrimPrefix(name, "/") })
}

func (h *Chat) expand(sessionID, name, args string) (string, error) {
	s, err := h.c.db.GetSession(h.c.context(), sessionID)
	if err != nil {
		return "", err
	}
	text, _, err := agents.Expand(h.c.instructionsDir, s.Workspace, "/"+name+" "+args)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return text, nil
}

// ImportClaudeCodeHooks copies the hooks of the person's ~/.claude/settings.json into their
// personal hooks.json (the only way those reach Loopdesk) and returns the view of the
// session's folder with how many were added.
func (h *Settings) ImportClaudeCodeHooks(sessionID string) (ImportedHooks, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return ImportedHooks{}, err
	}
	n, err := hooks.ImportClaudeCode(home, h.c.instructionsDir)
	if err != nil {
		return ImportedHooks{}, err
	}
	v, err := h.Hooks(sessionID)
	return ImportedHooks{Added: n, View: v}, err
}

// ImportedHooks is what ImportClaudeCodeHooks did.
type ImportedHooks struct {
	Added int       `json:"added"`
	View  HooksView `json:"view"`
}
