package mcp

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A stdio server dies with the app even when the app is killed with SIGKILL
// and gets no chance to clean up: the parent-death signal takes it.
func TestServerDiesWhenAppIsKilled(t *testing.T) {
	app := exec.Command(os.Args[0])
	app.Env = append(os.Environ(), helperEnv+"=parent")
	out, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Process.Kill(); _ = app.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the server pid from the app: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("app printed %q, want the server pid", line)
	}
	if !alive(pid) {
		t.Fatalf("server %d not running before the kill", pid)
	}
	if err := app.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = app.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server %d still alive 5 s after its app was SIGKILLed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
