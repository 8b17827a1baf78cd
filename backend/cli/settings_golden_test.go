package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// `loopdesk settings --json` keeps its exact bytes: scripts parse it. The saved layer is
// written as the window stores it (the settings table's keys and JSON), the environment and
// a providers.json sit on top, and the output — temporary paths replaced by names — must
// equal testdata/settings.golden byte for byte.
func TestSettingsJSONKeepsItsShape(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	err = db.SetSettings(ctx, [][2]string{
		{"endpoint.provider", "default"}, {"endpoint.base_url", "http://localhost:11434/v1"}, {"endpoint.model", "qwen3"},
		{"approval.mode", "read-only"},
		{"run.budgets", `{"max_turns":7,"max_tool_calls":9,"max_tokens":1000,"max_cost_usd":0.5,"timeout_seconds":60}`},
		{"model.prices", `[{"model":"qwen3","input_per_mtok":1,"output_per_mtok":2,"cache_read_per_mtok":0.1,"cache_write_per_mtok":0}]`},
		{"model.context_windows", `[{"model":"qwen3","tokens":32768}]`},
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg, "loopdesk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "api_key"), []byte("sk-file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	providers := `{"providers":[{"name":"local","kind":"openai","base_url":"http://127.0.0.1:8080/v1","models":["m1"],"api_key_env":"LOCAL_KEY"}]}`
	if err := os.WriteFile(filepath.Join(dir, "providers.json"), []byte(providers), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-env-secret", "LOCAL_KEY": "sk-local-secret"}
	var out, errb bytes.Buffer
	if code := SettingsCommand(ctx, []string{"--json", "--db", path}, func(k string) string { return env[k] }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := strings.NewReplacer(path, "$DB", cfg, "$CONFIG").Replace(out.String())
	if strings.Contains(got, "secret") {
		t.Fatal("settings printed a key")
	}
	golden := filepath.Join("testdata", "settings.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("settings --json changed shape:\n got: %s\nwant: %s", got, want)
	}
}
