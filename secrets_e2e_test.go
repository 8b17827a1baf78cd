package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The API key can be read by no command the agent runs, sandbox on or off: the real binary,
// started with OPENAI_API_KEY set, runs a scripted shell command that reads its parent's
// environment block; the key must be nowhere in the result row, the database or stdout,
// while a plain variable planted beside it is visible (so the read itself worked).
func TestAPIKeyIsUnreadableByShellCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the app")
	}
	bin := filepath.Join(t.TempDir(), "loopdesk")
	build := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,sqlite_fts5", "-o", bin, "./cmd/loopdesk")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const key = "sk-e2e-secret-4f1c9a7d0b"
	const command = `tr '\0' '\n' < /proc/$PPID/environ | grep -E 'OPENAI|CANARY'; ` +
		`cat /proc/$PPID/environ | tr '\0' '\n' | grep -c OPENAI_API_KEY=sk`
	for _, mode := range []string{"on", "off"} {
		t.Run("sandbox "+mode, func(t *testing.T) {
			srv, err := fakeai.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command",
				Arguments: `{"command":` + jsonString(command) + `}`}), fakeai.Text("done"))
			dir := t.TempDir()
			dbPath := filepath.Join(dir, "loopdesk.db")
			ws := filepath.Join(dir, "ws")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "run", "--db", dbPath, "--workspace", ws, "--base-url", srv.URL(),
				"--model", "fake-model", "--approve", "auto", "--sandbox", mode, "--json", "read the environment")
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+key, "CANARY_VISIBLE=yes", "HOME="+dir,
				"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("loopdesk run: %v\nstderr: %s", err, stderr.String())
			}
			// The key did reach the model server: the binary had it.
			if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
				t.Fatal("the key did not reach the model server")
			}
			db, err := store.Open(ctx, dbPath)
			if err != nil {
				t.Fatal(err)
			}
			sessions, err := db.ListSessions(ctx)
			if err != nil || len(sessions) != 1 {
				t.Fatalf("sessions %v %v", sessions, err)
			}
			chunks, err := db.Chunks(ctx, sessions[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			var result string
			for _, c := range chunks {
				if c.Kind == store.KindToolResult {
					result = string(c.Payload)
				}
			}
			db.Close()
			if strings.Contains(result, key) || strings.Contains(result, "OPENAI_API_KEY=sk") {
				t.Errorf("the command read the key: %s", result)
			}
			if !strings.Contains(result, `\n0\n`) {
				t.Errorf("the command did not count 0 keys in its parent's environment: %s", result)
			}
			if mode == "on" && !strings.Contains(result, `"sandboxed":true`) {
				t.Errorf("with --sandbox on the result does not say sandboxed: %s", result)
			}
			if mode == "off" && !strings.Contains(result, "CANARY_VISIBLE=yes") {
				t.Errorf("the parent's environment was not readable at all, so the test proves nothing: %s", result)
			}
			for name, b := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()} {
				if bytes.Contains(b, []byte(key)) {
					t.Errorf("the key is in %s", name)
				}
			}
			for _, f := range []string{dbPath, dbPath + "-wal"} {
				if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(key)) {
					t.Errorf("the key is in %s", f)
				}
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
