package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the command, so the test runs a real
// process without a separate go build.
func TestMain(m *testing.M) {
	if os.Getenv("FAKEAI_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func spawn(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FAKEAI_RUN_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no ready line: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "FAKEAI_URL=")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("ready line %q", line)
	}
	return cmd, stdin, url
}

func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fakeai did not exit")
	}
}

func TestProcessServesAndExitsWhenStdinCloses(t *testing.T) {
	cmd, stdin, url := spawn(t, "-api-key", "k1")
	req, _ := http.NewRequest(http.MethodGet, url+"/models", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without key: %d, want 401", resp.StatusCode)
	}
	req.Header.Set("Authorization", "Bearer k1")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("with key: %d", resp.StatusCode)
	}
	stdin.Close()
	waitExit(t, cmd)
}

func TestProcessExitsOnSignal(t *testing.T) {
	cmd, _, _ := spawn(t, "-delay", "5ms")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd)
}
