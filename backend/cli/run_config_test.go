package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A person sets up the endpoint, model, key and limits in the window, then
// types `loopdesk run "…"` with no flags and no environment: the run uses them.
func TestRunUsesWhatTheWindowSaved(t *testing.T) {
	e := runNewEnv(t)
	t.Setenv("OPENAI_API_KEY", "") // the key only in the key file, as Settings saves it
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	ctx := context.Background()
	db, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	err = saveAsWindow(ctx, db, config.Keys{Dir: filepath.Join(cfg, "loopdesk")}, "sk-test-secret", [][2]string{
		{config.SettingBaseURL, e.srv.URL()}, {config.SettingModel, "saved-model"}, {config.SettingApprovalMode, "auto"},
		{config.SettingBudgets, `{"max_turns":1,"max_tool_calls":0,"max_tokens":0,"max_cost_usd":0,"timeout_seconds":0}`}})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{Name: "list_dir", Arguments: `{"path":"."}`}),
		fakeai.Text("never reached: the saved limit is one turn"),
	)
	var out, errb bytes.Buffer
	code := Run(ctx, []string{"--db", e.db, "--workspace", e.ws, "--json", "look around"}, strings.NewReader(""), &out, &errb)
	if code != runExitBound {
		t.Fatalf("exit %d, want %d (the saved max_turns 1 stops it); stderr: %s", code, runExitBound, errb.String())
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"saved-model"`) || reqs[0].Header.Get("Authorization") != "Bearer sk-test-secret" {
		t.Fatalf("the model call did not use the saved model and key file: %s", reqs[0].Body)
	}
	// auto (saved) ran the tool without asking anybody.
	if !strings.Contains(out.String(), `"by":"mode:auto"`) {
		t.Errorf("the saved approval mode was not used:\n%s", out.String())
	}
	if strings.Contains(out.String()+errb.String(), "sk-test-secret") {
		t.Error("the key was printed")
	}

	// A flag still wins over the saved limit.
	e.srv.Enqueue(fakeai.Text("done"))
	out.Reset()
	code = Run(ctx, []string{"--db", e.db, "--workspace", e.ws, "--max-turns", "5", "--model", "flag-model", "again"},
		strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(string(e.srv.Requests()[1].Body), `"flag-model"`) {
		t.Fatalf("with flags: exit %d, stderr %s", code, errb.String())
	}
}
