package desktop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The window and the command line read one configuration: over the same database and
// environment, the window's Settings ("In effect") and `loopdesk settings --json` give the same
// values from the same sources (an environment variable beats a saved endpoint in both), and a
// saved value neither can use is the same error in both: the window shows it in Settings and
// refuses to start a run, the command line exits 2.
func TestTheWindowAndTheCommandLineReadTheSameSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/env/v1", "OPENAI_API_KEY": "sk-from-env"}
	getenv := func(k string) string { return env[k] }
	dbPath := filepath.Join(dir, "loopdesk.db")
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := desktop.New(db, config.Keys{Dir: filepath.Join(dir, "loopdesk"), Getenv: getenv}, &fakeDialogs{}, filepath.Join(dir, "loopdesk", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	svc.Startup(context.Background(), newRecorder().emit)
	defer svc.Shutdown()
	if _, err := svc.Settings.SaveSettings(desktop.SettingsInput{BaseURL: "http://127.0.0.1:9/saved/v1", Model: "saved-model", ApprovalMode: "read-only"}); err != nil {
		t.Fatal(err)
	}

	cliRows := func() ([]map[string]any, string, int) {
		var out, errb bytes.Buffer
		code := cli.SettingsCommand(context.Background(), []string{"--json", "--db", dbPath}, getenv, &out, &errb)
		var rows []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			rows = append(rows, m)
		}
		return rows, strings.TrimSpace(strings.TrimPrefix(errb.String(), "loopdesk settings: ")), code
	}
	windowRows := func() ([]map[string]any, string) {
		v, err := svc.Settings.EffectiveSettings()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v.Rows)
		var rows []map[string]any
		_ = json.Unmarshal(b, &rows)
		return rows, v.Error
	}

	fromCLI, _, code := cliRows()
	fromWindow, problem := windowRows()
	if code != 0 || problem != "" {
		t.Fatalf("exit %d, window problem %q", code, problem)
	}
	a, _ := json.Marshal(fromCLI)
	b, _ := json.Marshal(fromWindow)
	if !bytes.Equal(a, b) {
		t.Fatalf("the window and the command line disagree:\ncli:    %s\nwindow: %s", a, b)
	}
	for _, r := range fromWindow {
		if r["setting"] == "base_url" && (r["value"] != env["OPENAI_BASE_URL"] || r["source"] != "env" || r["detail"] != "OPENAI_BASE_URL") {
			t.Fatalf("base_url %v: OPENAI_BASE_URL beats the saved endpoint", r)
		}
		if r["setting"] == "api_key" && (r["value"] != true || r["source"] != "env") {
			t.Fatalf("api_key %v", r)
		}
	}
	if bytes.Contains(a, []byte("sk-from-env")) || bytes.Contains(b, []byte("sk-from-env")) {
		t.Fatal("a key was printed")
	}

	// A bad saved approval mode: the same error everywhere.
	if err := db.SetSettings(context.Background(), [][2]string{{config.SettingApprovalMode, "sometimes"}}); err != nil {
		t.Fatal(err)
	}
	_, cliErr, code := cliRows()
	_, windowErr := windowRows()
	set, err := svc.Settings.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	if code != cli.ExitUsage || cliErr == "" || cliErr != windowErr || set.Problem != cliErr || !strings.Contains(cliErr, `unknown approval mode "sometimes"`) {
		t.Fatalf("exit %d %q; window %q; Settings problem %q", code, cliErr, windowErr, set.Problem)
	}
	s, err := svc.Sessions.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Chat.SendMessage(s.ID, "hello")
	var bad *config.SettingError
	if !errors.As(err, &bad) {
		t.Fatalf("a run started on a bad saved mode: %v", err)
	}
	if _, err := os.Stat(dbPath); err != nil {
		t.Fatal(err)
	}
}
