package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// A hook's "continue": false ends `loopdesk run` as hook_stopped: exit 4 (as a cancel), the
// hook's stopReason on stderr and in run_finished.
func TestRunStoppedByAHook(t *testing.T) {
	e := runNewEnv(t)
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	writeHooksFile(t, filepath.Join(cfgHome, "loopdesk", "hooks.json"),
		`echo '{"continue": false, "stopReason": "the build is red"}'`)
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}))
	r := e.run(context.Background(), "", "--approve", "auto", "--sandbox", "off", "--json", "say hi")
	if r.code != runExitCancelled || !strings.Contains(r.stderr+r.stdout, "stopped by a PreToolUse hook: the build is red") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if len(e.srv.Requests()) != 1 || !strings.Contains(r.stdout, `"status":"hook_stopped"`) {
		t.Fatalf("run_finished does not say hook_stopped:\n%s", r.stdout)
	}
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}))
	r = e.run(context.Background(), "", "--approve", "auto", "--sandbox", "off", "say hi")
	if r.code != runExitCancelled || !strings.Contains(r.stderr, "the build is red") {
		t.Fatalf("exit %d, stderr without the stopReason:\n%s", r.code, r.stderr)
	}
}
