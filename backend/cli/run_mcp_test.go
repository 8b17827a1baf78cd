package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A bad --mcp-config file ends `run` with exit 1 and a message naming the file and the server,
// before anything is written.
func TestRunRefusesABadMCPConfigBeforeWritingAnything(t *testing.T) {
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	bad := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(bad, []byte(`{"mcpServers":{"tracker":{"args":["x"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(context.Background(), "", "--approve", "auto", "--mcp-config", bad, "hello")
	if r.code != 1 || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "tracker") {
		t.Fatalf("exit %d, stderr %q: want 1 naming %s and the server", r.code, r.stderr, bad)
	}
	if len(e.srv.Requests()) != 0 {
		t.Fatal("the model was called")
	}
	if _, err := os.Stat(e.db); err == nil {
		db, err := store.Open(context.Background(), e.db)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if ss, _ := db.ListSessions(context.Background()); len(ss) != 0 {
			t.Fatalf("a session was created: %+v", ss)
		}
	}
}

// `run --mcp-config` starts the servers and waits for them, so the first request already
// offers their tools; a call to one runs and its reply reaches the model.
func TestRunOffersMCPToolsFromTheFirstRequest(t *testing.T) {
	bin, err := filepath.Abs("../mcp/testdata/npm/node_modules/.bin/mcp-server-everything")
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("LOOPDESK_REQUIRE_MCP_NPM") == "1" {
			t.Fatalf("server-everything is not installed: %v", err)
		}
		t.Skipf("server-everything is not installed (npm ci in backend/mcp/testdata/npm): %v", err)
	}
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg := filepath.Join(t.TempDir(), "servers.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}})
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "m1", Name: "mcp__everything__echo", Arguments: `{"message":"from the CLI"}`}),
		fakeai.Text("done"))
	r := e.run(context.Background(), "", "--json", "--approve", "auto", "--mcp-config", cfg, "echo something")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"mcp__everything__echo"`) {
		t.Fatalf("%d requests; the first must offer mcp__everything__echo", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "Echo: from the CLI") {
		t.Fatal("the second request does not carry the server's reply")
	}
}

// --sandbox-network is what the run's shell commands get: the run row and run_started say so.
func TestRunSandboxNetworkFlagReachesTheRun(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, c := range []struct {
		flags []string
		want  string
	}{{nil, "no network"}, {[]string{"--sandbox-network"}, "network allowed"}} {
		e.srv.Enqueue(fakeai.Text("ok"))
		args := append([]string{"--json", "--approve", "auto", "--sandbox", "on"}, c.flags...)
		r := e.run(context.Background(), "", append(args, "hi")...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.flags, r.code, r.stderr)
		}
		var started map[string]any
		for _, l := range runLines(t, r.stdout) {
			if l["type"] == "run_started" {
				started = l
			}
		}
		if s, _ := started["sandbox"].(string); !strings.HasPrefix(s, "on: ") || !strings.Contains(s, c.want) {
			t.Errorf("%v: run_started sandbox %q, want on with %q", c.flags, s, c.want)
		}
	}
}
