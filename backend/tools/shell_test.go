package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func shell(ctx context.Context, ws *Workspace, command string, timeout int, out func(string)) Result {
	args, _ := json.Marshal(m{"command": command, "timeout_seconds": timeout})
	return shellTool{}.Execute(ctx, ws, args, out)
}

func TestShellRunsInWorkspaceWithStdinClosedAndReportsExitCode(t *testing.T) {
	ws := newWS(t)
	res := shell(context.Background(), ws, "pwd; cat; echo err >&2", 10, nil)
	if res.IsError || *res.Meta.ExitCode != 0 {
		t.Fatalf("got %+v", res)
	}
	if res.Content != ws.Root()+"\nerr\n" {
		t.Fatalf("output = %q, want the root then stderr (cat must see EOF at once)", res.Content)
	}
	res = shell(context.Background(), ws, "echo oops; exit 3", 10, nil)
	if !res.IsError || *res.Meta.ExitCode != 3 || res.Content != "oops\n\n[exit code 3]" {
		t.Fatalf("failing command: %+v", res)
	}
	res = shell(context.Background(), ws, "true", 10, nil)
	if res.IsError || res.Content != "(no output)" {
		t.Fatalf("silent command: %+v", res)
	}
}

func TestShellStreamsOutputWhileRunning(t *testing.T) {
	ws := newWS(t)
	var mu sync.Mutex
	var chunks []string
	out := func(s string) {
		mu.Lock()
		chunks = append(chunks, s)
		mu.Unlock()
		if strings.Contains(s, "waiting") {
			// Only a streamed chunk lets the command finish early.
			_ = os.WriteFile(filepath.Join(ws.Root(), "go"), nil, 0o644)
		}
	}
	cmd := `echo waiting; for i in $(seq 1 200); do [ -e go ] && { echo released; exit 0; }; sleep 0.05; done; echo never; exit 7`
	res := shell(context.Background(), ws, cmd, 30, out)
	if res.IsError || res.Content != "waiting\nreleased\n" {
		t.Fatalf("got %+v: output was not streamed while the command ran", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(chunks) < 2 || chunks[0] != "waiting\n" {
		t.Fatalf("chunks = %q", chunks)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func waitDead(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d survived", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(readFile(t, path)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if len(pids) < 2 {
		t.Fatalf("fixture did not record its processes: %v", pids)
	}
	return pids
}

// grandchildren starts a child that starts a grandchild, records their pids, waits.
const grandchildren = `bash -c 'sleep 300 & echo $! >> pids; sleep 300' & echo $! >> pids; ` +
	`for i in $(seq 1 100); do [ $(wc -l < pids) -ge 2 ] && break; sleep 0.02; done; echo started; wait`

func TestShellTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	ws := newWS(t)
	start := time.Now()
	res := shell(context.Background(), ws, grandchildren, 1, nil)
	if !res.IsError || !strings.Contains(res.Content, "timed out after 1s") || !strings.HasPrefix(res.Content, "started") {
		t.Fatalf("got %+v", res)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatalf("timeout took %v", time.Since(start))
	}
	waitDead(t, readPids(t, filepath.Join(ws.Root(), "pids")))
}

func TestShellCancelKillsTheWholeProcessGroup(t *testing.T) {
	ws := newWS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := func(s string) {
		if strings.Contains(s, "started") {
			cancel()
		}
	}
	res := shell(ctx, ws, grandchildren, 60, out)
	if !res.IsError || !strings.Contains(res.Content, "[cancelled;") {
		t.Fatalf("got %+v", res)
	}
	waitDead(t, readPids(t, filepath.Join(ws.Root(), "pids")))
}

func TestShellKillsBackgroundLeftoversAfterExit(t *testing.T) {
	ws := newWS(t)
	res := shell(context.Background(), ws, "sleep 300 & echo $! > pid; echo done", 10, nil)
	if res.IsError || res.Content != "done\n" {
		t.Fatalf("got %+v", res)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(ws.Root(), "pid"))))
	waitDead(t, []int{pid})
}

func TestShellCapsTenMegabytesInBoundedMemory(t *testing.T) {
	ws := newWS(t)
	// seq 1 1500000 writes about 10.9 MB.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := shell(context.Background(), ws, "seq 1 1500000", 60, nil)
	runtime.ReadMemStats(&after)
	if res.IsError || !res.Meta.Truncated {
		t.Fatalf("got error=%v truncated=%v", res.IsError, res.Meta.Truncated)
	}
	if len(res.Content) > ShellOutputCap+100 {
		t.Fatalf("kept %d bytes, cap is %d", len(res.Content), ShellOutputCap)
	}
	if !strings.HasPrefix(res.Content, "1\n2\n3\n") || !strings.HasSuffix(res.Content, "1499999\n1500000\n") {
		t.Fatalf("head or tail lost: %q ... %q", res.Content[:20], res.Content[len(res.Content)-20:])
	}
	if !strings.Contains(res.Content, " bytes of output cut]") {
		t.Fatal("cut not marked")
	}
	// 10.9 MB flowed through; what was allocated stays far below that.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3<<20 {
		t.Fatalf("allocated %d bytes while capturing 10 MB", alloc)
	}
}

func TestHeadTailKeepsBothEndsAndCountsTheCut(t *testing.T) {
	h := newHeadTail(8)
	for _, s := range []string{"ab", "cdef", "ghij", "k", "lmnopqrst", "uv", "wxyz"} {
		h.Write([]byte(s))
	}
	if got, want := h.String(), "abcd\n…[18 bytes of output cut]…\nwxyz"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	small := newHeadTail(8)
	small.Write([]byte("abcdef"))
	if small.String() != "abcdef" || small.Cut() != 0 {
		t.Fatalf("short output changed: %q", small.String())
	}
	u := newHeadTail(8)
	u.Write([]byte("aaaé" + strings.Repeat("-", 20) + "ézzz")) // é is 2 bytes: both cuts fall inside one
	if s := u.String(); !strings.HasPrefix(s, "aaa\n") || !strings.HasSuffix(s, "\nzzz") {
		t.Fatalf("rune split at the cut: %q", s)
	}
}

func TestShellDoesNotSeeTheAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("LOOPDESK_DB", "/tmp/x.db")
	t.Setenv("SOME_USER_VAR", "kept")
	ws := newWS(t)
	res := shell(context.Background(), ws, `echo "[$OPENAI_API_KEY][$LOOPDESK_DB][$SOME_USER_VAR]"`, 10, nil)
	if res.IsError || res.Content != "[][][kept]\n" {
		t.Fatalf("got %q", res.Content)
	}
}
