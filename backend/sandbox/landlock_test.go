package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helperPath is the helper TestMain built.
func helperPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath(helperName)
	if err != nil {
		t.Fatalf("the Landlock helper is not on PATH: %v", err)
	}
	return p
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if LandlockABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
}

// The Landlock layer enforces the write and network policy on its own, without
// bwrap's mounts and namespaces: what is left if the first layer had a hole.
func TestLandlockLayerAloneBlocksWritesAndTCP(t *testing.T) {
	requireLandlock(t)
	helper := helperPath(t)
	rw, other := outsideTmp(t), outsideTmp(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
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
	script := fmt.Sprintf(`echo in > %s/in && echo wrote-inside; echo out > %s/out; cat /etc/hostname >/dev/null && echo read-ok; `+
		`exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3`, rw, other, ln.Addr().(*net.TCPAddr).Port)

	out, _ := exec.Command(helper, "--rw", rw, "--rw", "/dev", "--no-net", "--", "bash", "-c", script).CombinedOutput()
	got := string(out)
	if !strings.Contains(got, "wrote-inside") || !strings.Contains(got, "read-ok") {
		t.Fatalf("the allowed parts failed: %s", got)
	}
	if !strings.Contains(got, "out: Permission denied") || strings.Contains(got, "pong") {
		t.Fatalf("Landlock let a write outside or a TCP connection through: %s", got)
	}
	if _, err := os.Stat(filepath.Join(other, "out")); !os.IsNotExist(err) {
		t.Fatal("the write outside reached the disk")
	}
	out, _ = exec.Command(helper, "--rw", rw, "--rw", "/dev", "--", "bash", "-c", script).CombinedOutput()
	if !strings.Contains(string(out), "pong") {
		t.Fatalf("without --no-net the connection should work: %s", out)
	}
}

func TestLandlockHelperRefusesToRunUnrestricted(t *testing.T) {
	helper := helperPath(t)
	out, err := exec.Command(helper, "--rw", "/nonexistent-folder", "--", "touch", "/var/tmp/should-not-exist").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "landlock") {
		t.Fatalf("a helper that cannot apply its policy ran the command: %v %s", err, out)
	}
	if _, err := os.Stat("/var/tmp/should-not-exist"); err == nil {
		os.Remove("/var/tmp/should-not-exist")
		t.Fatal("the command ran")
	}
}

func TestDetectAddsLandlockWhenTheHelperIsThere(t *testing.T) {
	requireLandlock(t)
	s := detect(t)
	if on, why := s.Landlock(); !on || !strings.Contains(s.Name(), "Landlock ABI") {
		t.Fatalf("no Landlock layer: %s (%s)", why, s.Name())
	}
	t.Setenv("PATH", "/usr/bin:/bin") // bwrap, but no helper
	s, err := Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if on, why := s.Landlock(); on || !strings.Contains(why, helperName) {
		t.Fatalf("without the helper: %v %q", on, why)
	}
	if out, code := run(t, s, Options{Dir: folder(t)}, "echo works"); code != 0 || out != "works\n" {
		t.Fatalf("bubblewrap alone: %d %q", code, out)
	}
}
