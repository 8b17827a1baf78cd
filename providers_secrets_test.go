package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A provider's key named by api_key_env in providers.json is hidden like OPENAI_API_KEY: the
// real binary sends it to that provider, and a shell command the agent runs cannot read it
// from its parent's environment (while a plain variable beside it is readable).
func TestProviderKeyEnvIsUnreadableByShellCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the app")
	}
	bin := filepath.Join(t.TempDir(), "loopdesk")
	build := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,sqlite_fts5", "-o", bin, "./cmd/loopdesk")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const key = "sk-provider-secret-7c2e91"
	srv, err := fakeai.Start(fakeai.WithAPIKey(key))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	command := `tr '\0' '\n' < /proc/$PPID/environ | grep -E 'LOCAL_PROVIDER_KEY|CANARY'`
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command",
		Arguments: `{"command":` + jsonString(command) + `}`}), fakeai.Text("done"))
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if err := os.MkdirAll(filepath.Join(cfg, "loopdesk"), 0o700); err != nil {
		t.Fatal(err)
	}
	providers := `{"providers": [{"name": "local", "kind": "openai", "base_url": "` + srv.URL() +
		`", "api_key_env": "LOCAL_PROVIDER_KEY", "models": ["fake-model"]}]}`
	if err := os.WriteFile(filepath.Join(cfg, "loopdesk", "providers.json"), []byte(providers), 0o600); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "loopdesk.db")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--db", dbPath, "--workspace", ws, "--provider", "local",
		"--approve", "auto", "--sandbox", "off", "--json", "read the environment")
	cmd.Env = append(os.Environ(), "LOCAL_PROVIDER_KEY="+key, "CANARY_VISIBLE=yes", "HOME="+dir,
		"XDG_CONFIG_HOME="+cfg, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("loopdesk run: %v\nstderr: %s", err, stderr.String())
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Fatal("the provider's key did not reach its server")
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.ListSessions(ctx)
	if err != nil || len(sessions) != 1 || sessions[0].Provider != "local" {
		t.Fatalf("sessions %+v %v", sessions, err)
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
	if strings.Contains(result, key) || strings.Contains(result, "LOCAL_PROVIDER_KEY=sk") {
		t.Errorf("the command read the provider's key: %s", result)
	}
	if !strings.Contains(result, "CANARY_VISIBLE=yes") {
		t.Errorf("the parent's environment was not readable at all, so the test proves nothing: %s", result)
	}
	if bytes.Contains(stdout.Bytes(), []byte(key)) || bytes.Contains(stderr.Bytes(), []byte(key)) {
		t.Error("the key is in the output")
	}
}
