package desktop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The sandbox is chosen per folder and overridden per session; the next run uses it: with
// "on" a command runs confined (a write outside the folder fails) and its row says sandboxed;
// with the session's override "off" the same command runs unconfined. The run rows say which.
func TestSandboxSettingsApplyToTheNextRun(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	if st := app.SandboxStatus(); !st.Available || st.Notice != "" || !strings.Contains(st.Name, "bubblewrap") {
		t.Fatalf("SandboxStatus() = %+v; want bwrap found (scripts/bootstrap.sh installs it) and no notice", st)
	}
	dir := t.TempDir()
	outside, err := os.MkdirTemp("/var/tmp", "loopdesk-desktop-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	s, err := app.NewSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := app.SessionSandbox(s.ID); err != nil || v.Source != "default" || v.Effective.Mode != "auto" {
		t.Fatalf("SessionSandbox = %+v, %v; want the default auto", v, err)
	}
	if _, err := app.SaveSandbox(desktop.SandboxInput{SessionID: s.ID, Scope: "workspace", Mode: "sideways"}); err == nil {
		t.Fatal("an unknown sandbox mode was saved")
	}
	v, err := app.SaveSandbox(desktop.SandboxInput{SessionID: s.ID, Scope: "workspace", Mode: "on"})
	if err != nil || v.Source != "workspace" || v.Effective.Mode != "on" || !strings.HasPrefix(v.Description, "on: bubblewrap") {
		t.Fatalf("after saving for the folder: %+v, %v", v, err)
	}

	run := func(name string) (sandboxed bool, escaped bool) {
		t.Helper()
		target := filepath.Join(outside, name)
		srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c-" + name, Name: "run_shell_command",
			Arguments: `{"command":"echo x > ` + target + `"}`}), fakeai.Text("ok"))
		if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", ApprovalMode: "auto"}); err != nil {
			t.Fatal(err)
		}
		runID, err := app.SendMessage(s.ID, "write "+name)
		if err != nil {
			t.Fatal(err)
		}
		if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
			t.Fatalf("run %v: %v", end["status"], end["error"])
		}
		view, err := app.OpenSession(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range view.Rows {
			if r.Kind == store.KindToolResult {
				if p := payload[store.ToolResultPayload](t, r.Chunk); p.CallID == "c-"+name {
					sandboxed = p.Sandboxed
				}
			}
		}
		_, err = os.Stat(target)
		return sandboxed, err == nil
	}
	if sb, escaped := run("a"); !sb || escaped {
		t.Fatalf("folder set to on: sandboxed=%v, wrote outside=%v; want confined", sb, escaped)
	}
	v, err = app.SaveSandbox(desktop.SandboxInput{SessionID: s.ID, Scope: "session", Mode: "off"})
	if err != nil || v.Source != "session" || v.Workspace.Mode != "on" || v.Description != "off: unconfined" {
		t.Fatalf("after the session's override: %+v, %v", v, err)
	}
	if sb, escaped := run("b"); sb || !escaped {
		t.Fatalf("session set to off: sandboxed=%v, wrote outside=%v; want unconfined", sb, escaped)
	}
	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Runs) != 2 || !strings.HasPrefix(view.Runs[0].Sandbox, "on: bubblewrap") || view.Runs[1].Sandbox != "off: unconfined" {
		t.Fatalf("runs record sandboxes %q", []string{view.Runs[0].Sandbox, view.Runs[1].Sandbox})
	}
	if view.Sandbox.Source != "session" {
		t.Fatalf("the session view's sandbox = %+v", view.Sandbox)
	}
	if v, err := app.SaveSandbox(desktop.SandboxInput{SessionID: s.ID, Scope: "session", Clear: true}); err != nil || v.Source != "workspace" {
		t.Fatalf("clearing the override: %+v, %v; want the folder's setting back", v, err)
	}
}

// Without a sandbox, the window is told so, with the fix.
func TestSandboxStatusSaysWhenNoneCanBeMade(t *testing.T) {
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	missing := &sandbox.UnavailableError{Reason: "bubblewrap (bwrap) is not installed or not on PATH", Fix: "install it (sudo apt-get install bubblewrap)"}
	svc, err := desktop.NewWith(db, config.Keys{Dir: t.TempDir(), Getenv: func(string) string { return "" }}, &fakeDialogs{}, "",
		stack.KnownSandbox(stack.Sandbox{Missing: missing}))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Shutdown()
	st := svc.Settings.SandboxStatus()
	if st.Available || !strings.Contains(st.Notice, "WITHOUT a sandbox") || !strings.Contains(st.Notice, "apt-get install bubblewrap") {
		t.Fatalf("SandboxStatus() = %+v; want a plain notice with the fix", st)
	}
}
