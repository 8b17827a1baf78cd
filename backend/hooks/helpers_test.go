package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/store"
)

// fixture is a folder with hooks and a real database.
type fixture struct {
	t        testing.TB
	db       *store.DB
	folder   string
	personal string
	engine   *hooks.Engine
	session  string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "loopdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, db: db, folder: filepath.Join(dir, "folder"), personal: filepath.Join(dir, "config")}
	for _, d := range []string{f.folder, f.personal} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := db.CreateSession(context.Background(), store.NewSession{Title: "t", Workspace: f.folder})
	if err != nil {
		t.Fatal(err)
	}
	f.session = sess.ID
	f.engine = &hooks.Engine{PersonalDir: f.personal, Trust: db, Rows: db}
	return f
}

// script writes an executable script into the folder and returns its path.
func (f *fixture) script(name, body string) string {
	f.t.Helper()
	p := filepath.Join(f.folder, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// hooksConfig is {"hooks": {event: [{"matcher": m, "hooks": [cmd...]}]}}.
func hooksConfig(event, matcher string, cmds ...map[string]any) map[string]any {
	hs := make([]any, len(cmds))
	for i, c := range cmds {
		if c["type"] == nil {
			c["type"] = "command"
		}
		hs[i] = c
	}
	return map[string]any{"hooks": map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": hs}}}}
}

func cmd(command string) map[string]any { return map[string]any{"type": "command", "command": command} }

func (f *fixture) writeJSON(path string, v any) {
	f.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		f.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// personalHooks writes the personal hooks.json (always trusted).
func (f *fixture) personalHooks(v any) { f.writeJSON(filepath.Join(f.personal, "hooks.json"), v) }

// projectHooks writes <folder>/.loopdesk/hooks.json.
func (f *fixture) projectHooks(v any) {
	f.writeJSON(filepath.Join(f.folder, ".loopdesk", "hooks.json"), v)
}

func (f *fixture) fire(in hooks.Input) hooks.Outcome {
	f.t.Helper()
	in.SessionID, in.Workspace = f.session, f.folder
	if in.PermissionMode == "" {
		in.PermissionMode = "ask"
	}
	return f.engine.Fire(context.Background(), in)
}

func shellCall(command string) hooks.Input {
	b, _ := json.Marshal(map[string]string{"command": command})
	return hooks.Input{Event: hooks.PreToolUse, Tool: "run_shell_command", Arguments: string(b), CallID: "c1"}
}
