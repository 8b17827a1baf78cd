package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// recorder keeps every status the manager reported, as the window would see them.
type recorder struct {
	mu  sync.Mutex
	all []Status
}

func (r *recorder) record(s Status) {
	r.mu.Lock()
	r.all = append(r.all, s)
	r.mu.Unlock()
}

func (r *recorder) saw(pred func(Status) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.all {
		if pred(s) {
			return true
		}
	}
	return false
}

func start(t *testing.T, servers map[string]ServerConfig, opts Options) *Manager {
	t.Helper()
	m := Start(Config{Servers: servers}, opts)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func settle(t *testing.T, m *Manager, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	if err := m.WaitSettled(ctx); err != nil {
		t.Fatalf("servers did not settle within %s: %v; statuses %+v", within, err, m.Statuses())
	}
}

// waitFor polls a server's status until pred holds.
func waitFor(t *testing.T, m *Manager, name string, within time.Duration, pred func(Status) bool) Status {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, _ := m.Status(name)
		if pred(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: condition not met within %s; last status %+v", name, within, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// run calls a tool through a registry built from the manager's tools, as the
// runner does: validation, then the adapter.
func run(t *testing.T, ctx context.Context, m *Manager, name, args string) tools.Result {
	t.Helper()
	reg, err := tools.NewRegistry(m.Tools()...)
	if err != nil {
		t.Fatalf("registry of MCP tools: %v", err)
	}
	return reg.Run(ctx, nil, tools.Call{ID: "c1", Name: name, Arguments: args}, nil)
}

func ready(s Status) bool { return s.State == StateReady }

func TestStdioToolThroughRegistry(t *testing.T) {
	m := start(t, map[string]ServerConfig{"helper": helperConfig("server")}, Options{})
	settle(t, m, 15*time.Second)
	st, _ := m.Status("helper")
	if st.State != StateReady || !contains(st.Tools, "mcp__helper__echo") || st.Transport != "stdio" {
		t.Fatalf("status = %+v, want ready with mcp__helper__echo over stdio", st)
	}
	// A tool whose schema does not compile is not offered (the registry below
	// would refuse the whole set) and Settings can say why.
	if contains(st.Tools, "mcp__helper__badschema") || len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], "badschema") {
		t.Fatalf("badschema: tools %v, skipped %q", st.Tools, st.Skipped)
	}
	ctx := context.Background()
	if res := run(t, ctx, m, "mcp__helper__echo", `{"message":"hi"}`); res.IsError || res.Content != "Echo: hi" {
		t.Fatalf("echo = %+v", res)
	}
	res := run(t, ctx, m, "mcp__helper__echo", `{"message":5}`)
	if !res.IsError || !strings.HasPrefix(res.Content, string(tools.CodeInvalidArguments)) {
		t.Fatalf("invalid arguments reached the server or were not reported: %+v", res)
	}
	for _, tl := range m.Tools() {
		if tl.Name() == "mcp__helper__echo" {
			mt := tl.(*Tool)
			if mt.Server() != "helper" || mt.OriginalName() != "echo" {
				t.Fatalf("server/original = %q/%q", mt.Server(), mt.OriginalName())
			}
		}
	}
}

func TestReadOnlyHintBelievedOnlyForTrustedServer(t *testing.T) {
	trusted := helperConfig("server")
	trusted.Trusted = true
	m := start(t, map[string]ServerConfig{"plain": helperConfig("server"), "trusted": trusted}, Options{})
	settle(t, m, 15*time.Second)
	got := map[string]bool{}
	for _, tl := range m.Tools() {
		got[tl.Name()] = tl.ReadOnly()
	}
	want := map[string]bool{
		"mcp__plain__echo":   false, // readOnlyHint, untrusted: asks
		"mcp__trusted__echo": true,  // readOnlyHint, trusted
		"mcp__trusted__fail": false, // no hint
	}
	for name, ro := range want {
		if g, ok := got[name]; !ok || g != ro {
			t.Errorf("%s: ReadOnly = %v (offered %v), want %v", name, g, ok, ro)
		}
	}
}

func TestResultConversion(t *testing.T) {
	m := start(t, map[string]ServerConfig{"h": helperConfig("server"), "big": helperConfig("big")}, Options{})
	settle(t, m, 15*time.Second)
	ctx := context.Background()
	if res := run(t, ctx, m, "mcp__h__fail", `{}`); !res.IsError || res.Content != "disk full" {
		t.Errorf("isError result = %+v, want an error result 'disk full'", res)
	}
	begun := time.Now()
	if res := run(t, ctx, m, "mcp__h__refuse", `{}`); !res.IsError || !strings.Contains(res.Content, "quota exceeded") || time.Since(begun) > 500*time.Millisecond {
		t.Errorf("JSON-RPC error answer = %+v after %s, want an error result at once", res, time.Since(begun))
	}
	res := run(t, ctx, m, "mcp__h__media", `{}`)
	for _, want := range []string{"[image: image/png, 1234 bytes]", "[resource: file:///a.bin (application/octet-stream, 99 bytes)]", `{"temperature":21.5}`} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("media result %q lacks %q", res.Content, want)
		}
	}
	begun = time.Now()
	res = run(t, ctx, m, "mcp__big__big", `{}`)
	if res.IsError || !res.Meta.Truncated || len(res.Content) > OutputCap+200 {
		t.Fatalf("10 MB result: error=%v truncated=%v len=%d, want capped to %d", res.IsError, res.Meta.Truncated, len(res.Content), OutputCap)
	}
	for _, want := range []string{"HEAD-MARK", "TAIL-MARK", "bytes of output cut"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("capped result lacks %q", want)
		}
	}
	t.Logf("10 MB result in %s", time.Since(begun))
}

func TestStopSendsCancellationToServer(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	m := start(t, map[string]ServerConfig{"h": helperConfig("server", "LOOPDESK_MCP_MARK="+mark)}, Options{})
	settle(t, m, 15*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result, 1)
	go func() { done <- run(t, ctx, m, "mcp__h__slow", `{}`) }()
	waitFile(t, mark, "started", 10*time.Second)
	stopped := time.Now()
	cancel() // the person pressed Stop
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "cancelled") || time.Since(stopped) > 2*time.Second {
		t.Fatalf("after Stop: %+v after %s, want a cancelled error result at once", res, time.Since(stopped))
	}
	waitFile(t, mark, "cancelled", 5*time.Second) // notifications/cancelled reached the server
}

func TestPerCallTimeout(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	cfg := helperConfig("server", "LOOPDESK_MCP_MARK="+mark)
	cfg.TimeoutS = 1
	m := start(t, map[string]ServerConfig{"h": cfg}, Options{})
	settle(t, m, 15*time.Second)
	begun := time.Now()
	res := run(t, context.Background(), m, "mcp__h__slow", `{}`)
	if took := time.Since(begun); !res.IsError || !strings.Contains(res.Content, "no answer within 1s") || took > 3*time.Second {
		t.Fatalf("slow call with timeout_s 1: %+v after %s", res, took)
	}
	waitFile(t, mark, "cancelled", 5*time.Second)
}

func TestCrashMidCallThenRestart(t *testing.T) {
	rec := &recorder{}
	m := start(t, map[string]ServerConfig{"h": helperConfig("server")}, Options{
		OnStatus: rec.record, Backoff: func(int) time.Duration { return 50 * time.Millisecond },
	})
	settle(t, m, 15*time.Second)
	begun := time.Now()
	res := run(t, context.Background(), m, "mcp__h__crash", `{}`)
	if !res.IsError || !strings.Contains(res.Content, "exited with code 7") || !strings.Contains(res.Content, "segmentation fault") || time.Since(begun) > 3*time.Second {
		t.Fatalf("crash mid-call: %+v after %s, want an error result with the exit code and stderr", res, time.Since(begun))
	}
	// The call returns as soon as the exit is seen; the status follows.
	eventually(t, 5*time.Second, func() bool { return rec.saw(func(s Status) bool { return s.State == StateExited }) })
	waitFor(t, m, "h", 15*time.Second, ready)
	if r := run(t, context.Background(), m, "mcp__h__echo", `{"message":"again"}`); r.Content != "Echo: again" {
		t.Fatalf("echo after restart = %+v", r)
	}
	if !rec.saw(func(s Status) bool { return s.State == StateExited && s.ExitCode != nil && *s.ExitCode == 7 }) ||
		!rec.saw(func(s Status) bool { return s.State == StateRestarting && s.Attempt == 1 && s.MaxRestarts == 5 }) {
		t.Fatalf("statuses seen %+v, want exited (code 7) then restarting 1 of 5", rec.all)
	}
	if log, _ := m.Log("h"); strings.Count(log, "helper server pid") != 2 {
		t.Fatalf("stderr log should hold both runs:\n%s", log)
	}
}

func TestCallToDownServerFailsFast(t *testing.T) {
	m := start(t, map[string]ServerConfig{"h": helperConfig("server")}, Options{Backoff: func(int) time.Duration { return time.Hour }})
	settle(t, m, 15*time.Second)
	reg, err := tools.NewRegistry(m.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	reg.Run(context.Background(), nil, tools.Call{Name: "mcp__h__crash", Arguments: "{}"}, nil)
	waitFor(t, m, "h", 5*time.Second, func(s Status) bool { return s.State == StateExited })
	begun := time.Now()
	res := reg.Run(context.Background(), nil, tools.Call{Name: "mcp__h__echo", Arguments: `{"message":"x"}`}, nil)
	if took := time.Since(begun); !res.IsError || !strings.Contains(res.Content, "exited with code 7") || took > 3*time.Second {
		t.Fatalf("call to a down server: %+v after %s, want the reason within 2 s", res, took)
	}
}

func TestRestartsAreBounded(t *testing.T) {
	once := filepath.Join(t.TempDir(), "ran")
	m := start(t, map[string]ServerConfig{"h": helperConfig("server", "LOOPDESK_MCP_ONCE="+once)}, Options{
		MaxRestarts: 2, Backoff: func(int) time.Duration { return 10 * time.Millisecond },
	})
	settle(t, m, 15*time.Second)
	run(t, context.Background(), m, "mcp__h__crash", `{}`)
	st := waitFor(t, m, "h", 20*time.Second, func(s Status) bool { return s.State == StateFailed })
	if !strings.Contains(st.Reason, "gave up after 2 restarts") || !strings.Contains(st.Reason, "exited with code 5") {
		t.Fatalf("reason = %q", st.Reason)
	}
}

func TestStartFailuresAreBoundedAndDoNotBlockOthers(t *testing.T) {
	m := start(t, map[string]ServerConfig{
		"good":    helperConfig("server"),
		"missing": {Command: "/nonexistent/mcp-server"},
		"exits":   helperConfig("exit"),
		"hangs":   helperConfig("hang"),
		"off":     {Command: "/nonexistent/never-started", Disabled: true},
	}, Options{InitTimeout: 2 * time.Second})
	begun := time.Now()
	settle(t, m, 10*time.Second)
	if took := time.Since(begun); took > 5*time.Second {
		t.Errorf("settling took %s with a 2 s initialize timeout", took)
	}
	cases := []struct {
		name, state, reason, stderr string
	}{
		{"good", "ready", "", ""},
		{"missing", "failed", "no such file or directory", ""},
		{"exits", "failed", "exited with code 3 before answering initialize", "config missing"},
		{"hangs", "failed", "did not answer initialize within 2s", "very large index"},
		{"off", "disabled", "disabled", ""},
	}
	for _, c := range cases {
		st, _ := m.Status(c.name)
		if string(st.State) != c.state || !strings.Contains(st.Reason, c.reason) || !strings.Contains(st.StderrTail, c.stderr) {
			t.Errorf("%s: %+v, want %s with reason %q and stderr %q", c.name, st, c.state, c.reason, c.stderr)
		}
	}
	if err := m.Restart("off"); err == nil {
		t.Error("Restart of a disabled server should fail")
	}
}

func TestJunkOnStdoutIsLoggedNotFatal(t *testing.T) {
	m := start(t, map[string]ServerConfig{"j": helperConfig("junk")}, Options{})
	settle(t, m, 15*time.Second)
	if res := run(t, context.Background(), m, "mcp__j__echo", `{"message":"ok"}`); res.Content != "Echo: ok" {
		t.Fatalf("echo on a server with a stdout banner = %+v", res)
	}
	if log, _ := m.Log("j"); !strings.Contains(log, "Starting my-server v1.0") {
		t.Fatalf("the banner should be in the log:\n%s", log)
	}
}

func TestToolsListChangedRefreshes(t *testing.T) {
	rec := &recorder{}
	m := start(t, map[string]ServerConfig{"h": helperConfig("server")}, Options{OnStatus: rec.record})
	settle(t, m, 15*time.Second)
	run(t, context.Background(), m, "mcp__h__add_tool", `{"name":"late"}`)
	waitFor(t, m, "h", 10*time.Second, func(s Status) bool { return contains(s.Tools, "mcp__h__late") })
	if res := run(t, context.Background(), m, "mcp__h__late", `{}`); res.Content != "I am late" {
		t.Fatalf("new tool = %+v", res)
	}
	if !rec.saw(func(s Status) bool { return contains(s.Tools, "mcp__h__late") }) {
		t.Fatal("no status callback carried the new tool")
	}
}

func TestServerEnvironmentHoldsNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-123")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-456")
	t.Setenv("MY_TOKEN", "token-789")
	cfg := helperConfig("server", "GIVEN_TOKEN=${MY_TOKEN}")
	m := start(t, map[string]ServerConfig{"h": cfg}, Options{})
	settle(t, m, 15*time.Second)
	env := run(t, context.Background(), m, "mcp__h__env", `{}`).Content
	for _, secret := range []string{"sk-test-secret-123", "aws-secret-456", "OPENAI_API_KEY"} {
		if strings.Contains(env, secret) {
			t.Errorf("server environment holds %q", secret)
		}
	}
	for _, want := range []string{"GIVEN_TOKEN=token-789", "PATH=" + os.Getenv("PATH")} {
		if !strings.Contains(env, want) {
			t.Errorf("server environment lacks %q", want)
		}
	}
}

func TestRestartAndCloseKillTheProcess(t *testing.T) {
	m := start(t, map[string]ServerConfig{"h": helperConfig("server")}, Options{})
	settle(t, m, 15*time.Second)
	first := pidOf(t, m, "h")
	if err := m.Restart("h"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for pidOf(t, m, "h") == first || pidOf(t, m, "h") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no new process after Restart")
		}
		time.Sleep(20 * time.Millisecond)
	}
	second := pidOf(t, m, "h")
	if alive(first) {
		t.Errorf("old process %d still alive after Restart", first)
	}
	_ = m.Close()
	if alive(second) {
		t.Errorf("process %d still alive after Close", second)
	}
}

func pidOf(t *testing.T, m *Manager, name string) int {
	s, ok := m.get(name)
	if !ok {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil || s.live.proc == nil {
		return 0
	}
	return s.live.proc.cmd.Process.Pid
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func eventually(t *testing.T, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitFile(t *testing.T, path, prefix string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		b, _ := os.ReadFile(path)
		if strings.HasPrefix(string(b), prefix) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: want %q within %s, have %q", path, prefix, within, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestApplyKeepsUnchangedServers(t *testing.T) {
	keep, drop := helperConfig("server"), helperConfig("server", "WHICH=drop")
	m := start(t, map[string]ServerConfig{"keep": keep, "drop": drop, "edit": helperConfig("server")}, Options{})
	settle(t, m, 15*time.Second)
	keepPid, dropPid, editPid := pidOf(t, m, "keep"), pidOf(t, m, "drop"), pidOf(t, m, "edit")
	edited := helperConfig("server")
	edited.Trusted = true
	m.Apply(Config{Servers: map[string]ServerConfig{"keep": keep, "edit": edited, "new": helperConfig("server")}})
	settle(t, m, 15*time.Second)
	if _, ok := m.Status("drop"); ok || alive(dropPid) {
		t.Errorf("removed server still listed or running (pid %d alive %v)", dropPid, alive(dropPid))
	}
	if pidOf(t, m, "keep") != keepPid {
		t.Error("an unchanged server was restarted")
	}
	if alive(editPid) || pidOf(t, m, "edit") == 0 {
		t.Error("a changed server was not restarted with its new entry")
	}
	if st, _ := m.Status("edit"); !st.Trusted {
		t.Errorf("edited server status %+v, want trusted", st)
	}
	if st, _ := m.Status("new"); st.State != StateReady {
		t.Errorf("added server %+v", st)
	}
}
