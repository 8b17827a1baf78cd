package desktop

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// SandboxSetting is how a folder's or a session's shell commands are confined.
type SandboxSetting struct {
	Mode    string `json:"mode"`    // "auto" (default), "on" or "off"
	Network bool   `json:"network"` // commands may use the network
}

// SandboxView is a session's sandbox as the window shows it: what applies, where it comes
// from, and in words what it means with the sandbox detected at start-up.
type SandboxView struct {
	Workspace   SandboxSetting  `json:"workspace"` // saved for the session's folder, or the default
	Session     *SandboxSetting `json:"session"`   // the session's own override, if any
	Effective   SandboxSetting  `json:"effective"`
	Source      string          `json:"source"`      // "session", "workspace" or "default"
	Description string          `json:"description"` // tools.ShellSandbox.Describe
	Notice      string          `json:"notice"`      // "" or what the person must know (no sandbox)
}

// SandboxInput saves a sandbox setting for a session ("session") or its folder
// ("workspace"). Clear removes the session's override (Scope "session" only).
type SandboxInput struct {
	SessionID string `json:"session_id"`
	Scope     string `json:"scope"`
	Mode      string `json:"mode"`
	Network   bool   `json:"network"`
	Clear     bool   `json:"clear"`
}

// SandboxStatus is what was detected at start-up. Notice, when not empty, is the one plain
// message the window shows (dismissable) with the fix: commands cannot be sandboxed.
type SandboxStatus struct {
	Available bool   `json:"available"`
	Name      string `json:"name"`   // "bubblewrap 0.8.0 + Landlock ABI 7"
	Notice    string `json:"notice"` // ShellSandbox.Notice under the default mode auto
}

// Keys of the settings table for sandbox settings; the value is a SandboxSetting's JSON.
func sandboxKeyWorkspace(root string) string    { return "sandbox.workspace:" + root }
func sandboxKeySession(sessionID string) string { return "sandbox.session:" + sessionID }

var defaultSandbox = SandboxSetting{Mode: string(sandbox.ModeBestEffort)}

func (c *core) sandboxSetting(ctx context.Context, key string) (*SandboxSetting, error) {
	v, ok, err := c.db.GetSetting(ctx, key)
	if err != nil || !ok || v == "" {
		return nil, err
	}
	var s SandboxSetting
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return nil, fmt.Errorf("read setting %s: %w", key, err)
	}
	return &s, nil
}

// sandboxView resolves the session's sandbox: its override, else its folder's, else auto.
func (c *core) sandboxView(ctx context.Context, s store.Session) (SandboxView, error) {
	v := SandboxView{Workspace: defaultSandbox, Source: "default"}
	if s.Workspace != "" {
		ws, err := c.sandboxSetting(ctx, sandboxKeyWorkspace(s.Workspace))
		if err != nil {
			return SandboxView{}, err
		}
		if ws != nil {
			v.Workspace, v.Source = *ws, "workspace"
		}
	}
	sess, err := c.sandboxSetting(ctx, sandboxKeySession(s.ID))
	if err != nil {
		return SandboxView{}, err
	}
	v.Effective, v.Session = v.Workspace, sess
	if sess != nil {
		v.Effective, v.Source = *sess, "session"
	}
	shell := c.shellSandbox(v.Effective)
	v.Description, v.Notice = shell.Describe(), shell.Notice()
	return v, nil
}

// shellSandbox is the run's tools.ShellSandbox for a setting, over what was detected.
func (c *core) shellSandbox(s SandboxSetting) tools.ShellSandbox {
	mode, err := sandbox.ParseMode(s.Mode)
	if err != nil {
		mode = sandbox.ModeBestEffort // stored values are checked on save; never fall to "off"
	}
	return c.st.Sandbox.Get().Shell(mode, s.Network)
}

// saveSandbox validates and stores in.
func (c *core) saveSandbox(ctx context.Context, in SandboxInput) (SandboxView, error) {
	s, err := c.db.GetSession(ctx, in.SessionID)
	if err != nil {
		return SandboxView{}, err
	}
	mode, err := sandbox.ParseMode(in.Mode)
	if err != nil && !in.Clear {
		return SandboxView{}, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	val, _ := json.Marshal(SandboxSetting{Mode: string(mode), Network: in.Network}) // always marshals
	switch {
	case in.Scope == "session" && in.Clear:
		err = c.db.SetSetting(ctx, sandboxKeySession(s.ID), "")
	case in.Scope == "session":
		err = c.db.SetSetting(ctx, sandboxKeySession(s.ID), string(val))
	case in.Scope == "workspace" && s.Workspace != "":
		err = c.db.SetSetting(ctx, sandboxKeyWorkspace(s.Workspace), string(val))
	case in.Scope == "workspace":
		return SandboxView{}, fmt.Errorf("%w: the session has no folder yet; save it for the session", ErrInvalidInput)
	default:
		return SandboxView{}, fmt.Errorf("%w: scope %q: want session or workspace", ErrInvalidInput, in.Scope)
	}
	if err != nil {
		return SandboxView{}, err
	}
	return c.sandboxView(ctx, s)
}

// SandboxStatus says whether a sandbox could be made at start-up, and if not, the notice
// with the fix that the window shows once.
func (h *Settings) SandboxStatus() SandboxStatus {
	c := h.c
	found := c.st.Sandbox.Get()
	st := SandboxStatus{Available: found.Box != nil, Notice: found.Shell(sandbox.ModeBestEffort, false).Notice()}
	if found.Box != nil {
		st.Name = found.Box.Name()
	}
	return st
}

// SessionSandbox is the session's sandbox: what applies and where it comes from.
func (h *Settings) SessionSandbox(sessionID string) (SandboxView, error) {
	ctx := h.c.context()
	s, err := h.c.db.GetSession(ctx, sessionID)
	if err != nil {
		return SandboxView{}, err
	}
	return h.c.sandboxView(ctx, s)
}

// SaveSandbox saves the sandbox mode and network choice for the session or its folder; the
// next run uses it.
func (h *Settings) SaveSandbox(in SandboxInput) (SandboxView, error) {
	return h.c.saveSandbox(h.c.context(), in)
}
