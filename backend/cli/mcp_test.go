package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// With LOOPDESK_CLI_MCP_SERVER=1 the test binary is a small stdio MCP server,
// so `loopdesk mcp list` has a real server to start in these tests.
func TestMain(m *testing.M) {
	runMainFromEnv() // db_test.go: the test binary as `loopdesk` in a process of its own
	if os.Getenv("LOOPDESK_CLI_MCP_SERVER") == "1" {
		srv := sdk.NewServer(&sdk.Implementation{Name: "cli-test", Version: "1"}, nil)
		type args struct {
			Message string `json:"message"`
		}
		sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Message}}}, nil, nil
		})
		_ = srv.Run(context.Background(), &sdk.StdioTransport{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writeMCPConfig(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mcpList(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := MCP(context.Background(), append([]string{"list"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestMCPListJSON(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	self, _ := os.Executable()
	writeMCPConfig(t, filepath.Join(xdg, "loopdesk", "mcp.json"), fmt.Sprintf(`{"mcpServers": {
		"good": {"command": %q, "env": {"LOOPDESK_CLI_MCP_SERVER": "1"}},
		"dies": {"command": "sh", "args": ["-c", "echo 'fatal: no token' >&2; exit 4"]}
	}}`, self))
	extra := writeMCPConfig(t, filepath.Join(t.TempDir(), "more.json"), `{"mcpServers": {
		"off": {"command": "/nonexistent", "disabled": true}
	}}`)
	code, stdout, stderr := mcpList(t, "--json", "--mcp-config", extra)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	got := map[string]map[string]any{}
	for _, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("not JSON Lines: %q: %v", l, err)
		}
		for _, k := range []string{"name", "transport", "status", "reason", "tools", "stderr_tail"} {
			if _, ok := obj[k]; !ok {
				t.Errorf("line %s lacks %q", l, k)
			}
		}
		got[obj["name"].(string)] = obj
	}
	if len(got) != 3 {
		t.Fatalf("want 3 servers, got %s", stdout)
	}
	if g := got["good"]; g["status"] != "ready" || g["transport"] != "stdio" || fmt.Sprint(g["tools"]) != "[mcp__good__echo]" {
		t.Errorf("good = %v", g)
	}
	if d := got["dies"]; d["status"] != "failed" || !strings.Contains(d["reason"].(string), "exited with code 4") || !strings.Contains(d["stderr_tail"].(string), "no token") {
		t.Errorf("dies = %v", d)
	}
	if o := got["off"]; o["status"] != "disabled" || fmt.Sprint(o["tools"]) != "[]" {
		t.Errorf("off = %v", o)
	}
}

func TestMCPListBadConfigNamesTheFile(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	def := writeMCPConfig(t, filepath.Join(xdg, "loopdesk", "mcp.json"), `{"mcpServers": {"gh": {"args": []}}}`)
	code, _, stderr := mcpList(t)
	if code != 1 || !strings.Contains(stderr, def) || !strings.Contains(stderr, `"gh"`) {
		t.Fatalf("bad XDG config: exit %d, stderr %q", code, stderr)
	}
	writeMCPConfig(t, def, `{"mcpServers": {}}`)
	missing := filepath.Join(t.TempDir(), "missing.json")
	if code, _, stderr := mcpList(t, "--mcp-config", missing); code != 1 || !strings.Contains(stderr, missing) {
		t.Fatalf("missing --mcp-config: exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := mcpList(t); code != 0 || !strings.Contains(stdout, "no MCP servers configured") {
		t.Fatalf("empty config: exit %d, %q", code, stdout)
	}
}

func TestMCPUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := MCP(context.Background(), []string{"frobnicate"}, &out, &errb); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
	if code := MCP(context.Background(), []string{"list", "--nope"}, &out, &errb); code != 2 {
		t.Fatalf("unknown flag: exit %d", code)
	}
}
