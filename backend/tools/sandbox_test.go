package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/sandbox"
)

// realSandbox is the sandbox as the app makes it: bwrap is installed by
// scripts/bootstrap.sh, so its absence fails the test.
func realSandbox(t *testing.T) ShellSandbox {
	t.Helper()
	box, err := sandbox.Detect(context.Background())
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	return ShellSandbox{Mode: sandbox.ModeOn, Box: box}
}

func shellWith(ctx context.Context, s ShellSandbox, ws *Workspace, args m, out func(string)) Result {
	raw, _ := json.Marshal(args)
	return ShellTool(s).Execute(ctx, ws, raw, out)
}

func TestSandboxedShellConfinesAndSaysWhatItBlocked(t *testing.T) {
	s := realSandbox(t)
	ws := newWS(t)
	outside, err := os.MkdirTemp("/var/tmp", "loopdesk-shell-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)

	res := shellWith(context.Background(), s, ws, m{"command": "echo inside > in.txt && cat in.txt"}, nil)
	if res.IsError || res.Content != "inside\n" || !res.Meta.Sandboxed {
		t.Fatalf("write inside: %+v", res)
	}
	res = shellWith(context.Background(), s, ws, m{"command": "echo x > " + outside + "/escape"}, nil)
	if !res.IsError || !res.Meta.Sandboxed {
		t.Fatalf("write outside: %+v", res)
	}
	lines := strings.Split(res.Content, "\n")
	if !strings.Contains(lines[0], "Read-only file system") {
		t.Fatalf("the command's own error is not first: %q", res.Content)
	}
	if !strings.Contains(res.Content, "\n[sandbox: ") || !strings.Contains(res.Content, "read-only") || strings.Count(res.Content, "[sandbox:") != 1 {
		t.Fatalf("no single line saying the sandbox blocked it: %q", res.Content)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape")); !os.IsNotExist(err) {
		t.Fatal("the write outside the folder reached the disk")
	}
}

func TestSandboxedShellNetworkOnlyWhenAskedOrAllowed(t *testing.T) {
	s := realSandbox(t)
	ws := newWS(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("pong\n"))
			c.Close()
		}
	}()
	cmd := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", ln.Addr().(*net.TCPAddr).Port)
	res := shellWith(context.Background(), s, ws, m{"command": cmd}, nil)
	if !res.IsError || !strings.Contains(res.Content, "no network") {
		t.Fatalf("without network: %+v", res)
	}
	res = shellWith(context.Background(), s, ws, m{"command": cmd, "network": true}, nil)
	if res.IsError || res.Content != "pong\n" {
		t.Fatalf("asked for network: %+v", res)
	}
	s.Network = true
	res = shellWith(context.Background(), s, ws, m{"command": cmd}, nil)
	if res.IsError || res.Content != "pong\n" {
		t.Fatalf("session allows network: %+v", res)
	}
}

// markerProcs counts the host's processes running `sleep marker`.
func markerProcs(marker string) int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), "sleep\x00"+marker+"\x00") && alive(atoiOr(e.Name())) {
			n++
		}
	}
	return n
}

func atoiOr(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func waitProcs(t *testing.T, marker string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for markerProcs(marker) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes with %s, want %d", markerProcs(marker), marker, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Inside the sandbox the command's pids are not the host's, so the test finds its
// processes by a marker in their command line. One of them leaves the process
// group with setsid: the PID namespace still takes it down with the rest.
func TestSandboxedShellTimeoutKillsGrandchildren(t *testing.T) {
	s := realSandbox(t)
	ws := newWS(t)
	marker := fmt.Sprintf("3000.%d", time.Now().UnixNano()%1e9)
	cmd := fmt.Sprintf(`bash -c 'sleep %[1]s & sleep %[1]s' & setsid sleep %[1]s & echo started; wait`, marker)
	var once sync.Once
	seen := make(chan struct{})
	out := func(c string) {
		if strings.Contains(c, "started") {
			once.Do(func() { close(seen) })
		}
	}
	done := make(chan Result, 1)
	go func() { done <- shellWith(context.Background(), s, ws, m{"command": cmd, "timeout_seconds": 3}, out) }()
	<-seen
	waitProcs(t, marker, 3) // all three run, on the host, before the timeout
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "timed out after 3s") || !res.Meta.Sandboxed {
		t.Fatalf("got %+v", res)
	}
	waitProcs(t, marker, 0)
}

func TestNoSandboxRefusedWhenRequiredAndNoticedUnderAuto(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin:"+t.TempDir()) // bash, no bwrap: see the check below
	if _, err := os.Stat("/usr/bin/bwrap"); err == nil {
		t.Setenv("PATH", pathWithout(t, "bwrap"))
	}
	_, missing := sandbox.Detect(context.Background())
	if missing == nil {
		t.Fatal("Detect found a sandbox on a PATH without bwrap")
	}
	ws := newWS(t)
	on := ShellSandbox{Mode: sandbox.ModeOn, Missing: missing}
	res := shellWith(context.Background(), on, ws, m{"command": "touch ran"}, nil)
	if !res.IsError || !strings.Contains(res.Content, "sandbox is required") || !strings.Contains(res.Content, "bubblewrap") {
		t.Fatalf("required but missing: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "ran")); !os.IsNotExist(err) {
		t.Fatal("the refused command ran")
	}
	if n := on.Notice(); !strings.Contains(n, "refused") || !strings.Contains(n, "apt-get install bubblewrap") {
		t.Fatalf("notice under on: %q", n)
	}

	auto := ShellSandbox{Mode: sandbox.ModeBestEffort, Missing: missing}
	res = shellWith(context.Background(), auto, ws, m{"command": "touch ran && echo ok"}, nil)
	if res.IsError || res.Meta.Sandboxed || res.Content != "ok\n" {
		t.Fatalf("auto without a sandbox: %+v", res)
	}
	if n := auto.Notice(); !strings.Contains(n, "WITHOUT a sandbox") || !strings.Contains(n, "apt-get install bubblewrap") {
		t.Fatalf("notice under auto: %q", n)
	}
	call := Call{ID: "c", Name: "run_shell_command", Arguments: `{"command":"make test"}`}
	if auto.Sandboxed(call) {
		t.Fatal("a command that runs unconfined counts as sandboxed")
	}
	if e, _ := evaluate(ModeSandboxed, nil, call, false, auto.Sandboxed(call), ws.Root()); e != EffectAsk {
		t.Fatalf("mode sandboxed lets an unconfined command run: %s", e)
	}
}

// pathWithout builds a PATH of symlinks to the usual tools except name, for
// systems where bwrap sits in /usr/bin beside bash.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"bash", "true", "touch", "echo", "cat", "sleep"} {
		if tool == name {
			continue
		}
		if p, err := filepath.EvalSymlinks("/usr/bin/" + tool); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestUnsandboxedIsRefusedUnderOnAndAsksUnderAuto(t *testing.T) {
	s := realSandbox(t)
	ws := newWS(t)
	res := shellWith(context.Background(), s, ws, m{"command": "touch ran", "unsandboxed": true}, nil)
	if !res.IsError || !strings.Contains(res.Content, "sandbox is required") {
		t.Fatalf("unsandboxed under on: %+v", res)
	}
	s.Mode = sandbox.ModeBestEffort
	call := Call{Name: "run_shell_command", Arguments: `{"command":"touch /etc/x","unsandboxed":true}`}
	if s.Sandboxed(call) {
		t.Fatal("an unsandboxed call counts as sandboxed")
	}
	res = shellWith(context.Background(), s, ws, m{"command": "touch ran && echo ok", "unsandboxed": true}, nil)
	if res.IsError || res.Meta.Sandboxed {
		t.Fatalf("unsandboxed under auto (once approved): %+v", res)
	}
}

func TestRegistryWithShellConfinesOnlyItsCopy(t *testing.T) {
	s := realSandbox(t)
	ws := newWS(t)
	base := builtinRegistry(t)
	boxed := base.WithShell(s)
	call := Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"touch /var/tmp/loopdesk-registry-probe"}`}
	defer os.Remove("/var/tmp/loopdesk-registry-probe")
	if res := boxed.Run(context.Background(), ws, call, nil); !res.IsError || !res.Meta.Sandboxed {
		t.Fatalf("through the session's registry: %+v", res)
	}
	if res := base.Run(context.Background(), ws, call, nil); res.IsError || res.Meta.Sandboxed {
		t.Fatalf("the shared registry changed: %+v", res)
	}
	if len(boxed.Specs()) != len(base.Specs()) || !strings.Contains(boxed.Specs()[6].Description, "sandbox") {
		t.Fatalf("specs: %+v", boxed.Specs()[6])
	}
}

func TestModeSandboxed(t *testing.T) {
	s := ShellSandbox{Mode: sandbox.ModeBestEffort, Box: &sandbox.Sandbox{}} // the decision needs no bwrap
	withNet := s
	withNet.Network = true
	netCall := Call{ID: "c", Name: "run_shell_command", Arguments: `{"command":"curl example.com","network":true}`}
	rules := []Rule{{ID: "no-rm", Tool: "run_shell_command", Pattern: "rm *", Effect: EffectDeny},
		{ID: "ask-push", Tool: "run_shell_command", Pattern: "git push*", Effect: EffectAsk}}
	for _, c := range []struct {
		name      string
		call      Call
		readOnly  bool
		sandboxed bool
		want      Effect
	}{
		{"sandboxed command runs", shellCall("go test ./..."), false, s.Sandboxed(shellCall("go test ./...")), EffectAllow},
		{"command asking for network asks", netCall, false, s.Sandboxed(netCall), EffectAsk},
		{"network the session allows runs", netCall, false, withNet.Sandboxed(netCall), EffectAllow},
		{"unsandboxed asks", Call{Name: "run_shell_command", Arguments: `{"command":"x","unsandboxed":true}`}, false, false, EffectAsk},
		{"sandbox off: command asks", shellCall("make"), false, ShellSandbox{}.Sandboxed(shellCall("make")), EffectAsk},
		{"file write in the folder runs", pathCall("write_file", "src/a.go"), false, false, EffectAllow},
		{"file edit in the folder runs", pathCall("edit_file", "src/a.go"), false, false, EffectAllow},
		{"read-only MCP tool runs", Call{Name: "mcp__fs__read"}, true, false, EffectAllow},
		{"MCP tool not trusted read-only asks", Call{Name: "mcp__gh__create_issue"}, false, false, EffectAsk},
		{"deny rule still wins", shellCall("rm -rf build"), false, true, EffectDeny},
		{"ask rule still asks", shellCall("git push"), false, true, EffectAsk},
	} {
		if got, by := evaluate(ModeSandboxed, rules, c.call, c.readOnly, c.sandboxed, "/w"); got != c.want {
			t.Errorf("%s: got %s by %s, want %s", c.name, got, by, c.want)
		}
	}
	if !ModeSandboxed.Valid() {
		t.Fatal("mode sandboxed is not valid")
	}
}

func TestApproverInModeSandboxedAsksOnlyForWhatLeavesTheSandbox(t *testing.T) {
	s := realSandbox(t)
	s.Mode = sandbox.ModeBestEffort
	var pending []Pending
	var mu sync.Mutex
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A card is shown: the person walks away (the call stays undecided).
	a := NewApprover(nil)
	walkAway := func(p Pending) { mu.Lock(); pending = append(pending, p); mu.Unlock(); cancel() }
	call := shellCall("go test ./...")
	d, err := a.Request(context.Background(), Request{SessionID: "s", Workspace: "/w", Mode: ModeSandboxed, Call: call, Sandboxed: s.Sandboxed(call), OnPending: walkAway})
	if err != nil || !d.Approved || d.By != "mode:sandboxed" {
		t.Fatalf("sandboxed command: %+v %v", d, err)
	}
	netCall := Call{ID: "n", Name: "run_shell_command", Arguments: `{"command":"npm install","network":true}`}
	if _, err := a.Request(ctx, Request{SessionID: "s", Workspace: "/w", Mode: ModeSandboxed, Call: netCall, Sandboxed: s.Sandboxed(netCall), OnPending: walkAway}); err == nil {
		t.Fatal("a command asking for network was decided without the person")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pending) != 1 || pending[0].Call.ID != "n" || pending[0].Sandboxed {
		t.Fatalf("pending = %+v", pending)
	}
}

func TestDescribeAndAsksNetwork(t *testing.T) {
	box := realSandbox(t).Box
	missing := &sandbox.UnavailableError{Reason: "bubblewrap (bwrap) is not installed", Fix: "install it"}
	for _, tc := range []struct {
		s    ShellSandbox
		want []string // substrings of Describe
	}{
		{ShellSandbox{}, []string{"off: unconfined"}},
		{ShellSandbox{Mode: sandbox.ModeOff, Box: box}, []string{"off: unconfined"}},
		{ShellSandbox{Mode: sandbox.ModeBestEffort, Box: box}, []string{"auto: ", box.Name(), "no network"}},
		{ShellSandbox{Mode: sandbox.ModeOn, Box: box, Network: true}, []string{"on: ", "network allowed"}},
		{ShellSandbox{Mode: sandbox.ModeBestEffort, Missing: missing}, []string{"auto: unconfined", "bwrap"}},
		{ShellSandbox{Mode: sandbox.ModeOn, Missing: missing}, []string{"on: shell commands refused", "bwrap"}},
	} {
		got := tc.s.Describe()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("Describe() = %q; want it to contain %q", got, w)
			}
		}
	}

	if !AsksNetwork(Call{Name: "run_shell_command", Arguments: `{"command":"curl x","network":true}`}) {
		t.Error("a command with network: true does not ask for network")
	}
	if AsksNetwork(Call{Name: "run_shell_command", Arguments: `{"command":"ls"}`}) ||
		AsksNetwork(Call{Name: "read_file", Arguments: `{"network":true}`}) {
		t.Error("a call without network: true asks for network")
	}
}
