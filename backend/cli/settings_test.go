package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/store"
)

func TestSettingsShowsWhatTheWindowSavedWithoutTheKey(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	keys := config.Keys{Dir: filepath.Join(cfg, "loopdesk")}
	err = saveAsWindow(ctx, db, keys, "sk-very-secret", [][2]string{
		{config.SettingBaseURL, "http://localhost:11434/v1"}, {config.SettingModel, "qwen3"}, {config.SettingBudgets, `{"max_turns":7,"max_tool_calls":0,"max_tokens":0,"max_cost_usd":0,"timeout_seconds":0}`}})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"LOOPDESK_MODEL": "from-env"}
	var out, errb bytes.Buffer
	if code := SettingsCommand(ctx, []string{"--json", "--db", path}, func(k string) string { return env[k] }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "sk-very-secret") {
		t.Fatal("settings printed the key")
	}
	got := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got[row["setting"].(string)] = row
	}
	want := map[string][3]any{
		"base_url":  {"http://localhost:11434/v1", "saved", path},
		"model":     {"from-env", "env", "LOOPDESK_MODEL"},
		"api_key":   {true, "saved", keys.Path()},
		"max_turns": {float64(7), "saved", path},
		"timeout":   {"0s", "saved", path},
	}
	for name, w := range want {
		r := got[name]
		if r["value"] != w[0] || r["source"] != w[1] || r["detail"] != w[2] {
			t.Errorf("%s = %v, want value %v from %v %v", name, r, w[0], w[1], w[2])
		}
	}

	out.Reset()
	if code := SettingsCommand(ctx, []string{"--db", path}, func(k string) string { return env[k] }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, s := range []string{"model", "from-env", "env LOOPDESK_MODEL", "api_key", "found", "saved " + keys.Path()} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
}

func TestSettingsDoesNotCreateADatabase(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "none.db")
	var out, errb bytes.Buffer
	if code := SettingsCommand(context.Background(), []string{"--db", path}, func(string) string { return "" }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("settings created %s (err %v)", path, err)
	}
	if !strings.Contains(out.String(), "https://api.openai.com/v1") {
		t.Errorf("defaults missing:\n%s", out.String())
	}
}

// saveAsWindow stores settings as the window's Settings screen does (backend/desktop's
// SettingsStore.Save writes these keys in one transaction, and the key to the key file);
// the CLI imports nothing of the window, so its tests write the same rows themselves.
func saveAsWindow(ctx context.Context, db *store.DB, keys config.Keys, key string, kvs [][2]string) error {
	if err := keys.SetKey(key); err != nil {
		return err
	}
	return db.SetSettings(ctx, kvs)
}
