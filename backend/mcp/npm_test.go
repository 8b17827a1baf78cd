package mcp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real servers of others, installed by `npm ci` in testdata/npm (make
// test-go does it). Without them these tests skip, unless
// LOOPDESK_REQUIRE_MCP_NPM=1 (set by make test-go), when they fail.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "npm", "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(p)
	_, nodeErr := exec.LookPath("node")
	if statErr == nil && nodeErr == nil {
		return p
	}
	msg := fmt.Sprintf("%s or node missing (run npm ci in backend/mcp/testdata/npm): %v %v", bin, statErr, nodeErr)
	if os.Getenv("LOOPDESK_REQUIRE_MCP_NPM") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func TestEverythingOverStdio(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	t.Setenv("OPENAI_API_KEY", "sk-never-passed-42")
	rec := &recorder{}
	m := start(t, map[string]ServerConfig{
		"everything": {Command: bin},
		"trusted":    {Command: bin, Trusted: true},
	}, Options{OnStatus: rec.record})
	settle(t, m, 30*time.Second)
	ctx := context.Background()
	if res := run(t, ctx, m, "mcp__everything__echo", `{"message":"hi"}`); res.IsError || res.Content != "Echo: hi" {
		t.Fatalf("echo = %+v", res)
	}
	if res := run(t, ctx, m, "mcp__everything__get-sum", `{"a":2,"b":40}`); res.IsError || !strings.Contains(res.Content, "42") {
		t.Fatalf("get-sum = %+v", res)
	}
	if res := run(t, ctx, m, "mcp__everything__get-sum", `{"a":"two","b":40}`); !strings.HasPrefix(res.Content, "invalid_tool_arguments") {
		t.Fatalf("get-sum with a string: %+v, want refused before the call", res)
	}
	env := run(t, ctx, m, "mcp__everything__get-env", `{}`)
	if env.IsError || !strings.Contains(env.Content, "PATH") || strings.Contains(env.Content, "sk-never-passed-42") || strings.Contains(env.Content, "OPENAI_API_KEY") {
		t.Fatalf("get-env: error=%v, holds the key=%v", env.IsError, strings.Contains(env.Content, "sk-never"))
	}
	readOnly := map[string]bool{}
	for _, tl := range m.Tools() {
		readOnly[tl.Name()] = tl.ReadOnly()
	}
	if readOnly["mcp__everything__get-env"] || !readOnly["mcp__trusted__get-env"] {
		t.Fatalf("readOnlyHint believed for untrusted=%v trusted=%v", readOnly["mcp__everything__get-env"], readOnly["mcp__trusted__get-env"])
	}
	// server-everything registers more tools after initialize and says so
	// with notifications/tools/list_changed.
	waitFor(t, m, "everything", 10*time.Second, func(s Status) bool { return contains(s.Tools, "mcp__everything__simulate-research-query") })
	if !rec.saw(func(s Status) bool {
		return s.Name == "everything" && s.State == StateReady && !contains(s.Tools, "mcp__everything__simulate-research-query")
	}) {
		t.Log("the first tools/list already held the late tools (the notification raced initialize)")
	}
}

func TestEverythingLongOperationCancelled(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	m := start(t, map[string]ServerConfig{"everything": {Command: bin}}, Options{})
	settle(t, m, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	begun := time.Now()
	res := run(t, ctx, m, "mcp__everything__trigger-long-running-operation", `{"duration":30,"steps":30}`)
	if took := time.Since(begun); !res.IsError || !strings.Contains(res.Content, "cancelled") || took > 3*time.Second {
		t.Fatalf("30 s operation stopped after 1 s: %+v after %s", res, took)
	}
	if res := run(t, context.Background(), m, "mcp__everything__echo", `{"message":"still here"}`); res.Content != "Echo: still here" {
		t.Fatalf("server after a cancelled call: %+v", res)
	}
}

func TestEverythingOverStreamableHTTP(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	port := freePort(t)
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(serverEnv(os.Environ(), nil), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	waitListening(t, port, 30*time.Second)
	m := start(t, map[string]ServerConfig{
		"everything": {Type: "http", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)},
	}, Options{})
	settle(t, m, 30*time.Second)
	if res := run(t, context.Background(), m, "mcp__everything__echo", `{"message":"over http"}`); res.IsError || res.Content != "Echo: over http" {
		st, _ := m.Status("everything")
		t.Fatalf("echo over streamable HTTP = %+v; status %+v", res, st)
	}
}

func TestFilesystemServerReadsFile(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the answer is 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := start(t, map[string]ServerConfig{"fs": {Command: bin, Args: []string{dir}}}, Options{})
	settle(t, m, 30*time.Second)
	args := fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes.txt"))
	if res := run(t, context.Background(), m, "mcp__fs__read_text_file", args); res.IsError || !strings.Contains(res.Content, "the answer is 42") {
		t.Fatalf("read_text_file = %+v", res)
	}
	outside := `{"path":"/etc/passwd"}`
	if res := run(t, context.Background(), m, "mcp__fs__read_text_file", outside); !res.IsError {
		t.Fatalf("reading outside the allowed folder = %+v, want the server's error", res)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitListening(t *testing.T, port int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("port %d not listening within %s", port, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
