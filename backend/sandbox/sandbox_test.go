package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// detect builds the real sandbox; bwrap is installed by scripts/bootstrap.sh, so a
// missing one fails the test rather than skipping it.
func detect(t testing.TB) *Sandbox {
	t.Helper()
	s, err := Detect(context.Background())
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	return s
}

// run runs script with bash -c in the sandbox and returns its merged output and exit code.
func run(t testing.TB, s *Sandbox, o Options, script string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	if err := s.Confine(cmd, o); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("run %q: %v", script, err)
	return "", -1
}

// outsideTmp makes a folder the host can write that is not under /tmp (which the
// sandbox replaces anyway), so a test proves the read-only or hidden mount, not the
// private /tmp.
func outsideTmp(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "loopdesk-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func folder(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWritingInsideTheFolderWorks(t *testing.T) {
	s := detect(t)
	dir := folder(t)
	out, code := run(t, s, Options{Dir: dir}, "mkdir -p sub && echo made > sub/f.txt && cat sub/f.txt && pwd")
	if code != 0 || out != "made\n"+dir+"\n" {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "f.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("the host does not see the file written inside the folder: %q %v", b, err)
	}
}

func TestWritingOutsideTheFolderFailsAndLeavesNothing(t *testing.T) {
	s := detect(t)
	parent := outsideTmp(t)
	dir := filepath.Join(parent, "project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	other := outsideTmp(t)
	for _, target := range []string{filepath.Join(other, "x"), filepath.Join(dir, "..", "sibling"),
		"/var/tmp/loopdesk-escape", "/etc/loopdesk-escape", "/usr/local/bin/loopdesk-escape"} {
		out, code := run(t, s, Options{Dir: dir}, "echo pwned > "+target)
		if code == 0 || !strings.Contains(out, "Read-only file system") {
			t.Errorf("writing %s: exit %d, %q; want a read-only file system error", target, code, out)
		}
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Errorf("%s exists on the host after the sandboxed write (%v)", target, err)
			os.Remove(target)
		}
	}
	// The host's /tmp is replaced by a private one: a write there succeeds inside
	// and reaches nothing outside.
	hostTmp := folder(t)
	out, code := run(t, s, Options{Dir: dir}, "mkdir -p "+hostTmp+" && echo pwned > "+hostTmp+"/x")
	if _, err := os.Stat(filepath.Join(hostTmp, "x")); !os.IsNotExist(err) {
		t.Fatalf("a write to /tmp inside the sandbox reached the host (exit %d %q)", code, out)
	}
	// The private /tmp is writable, and what is written there is gone afterwards.
	out, code = run(t, s, Options{Dir: dir}, "echo scratch > /tmp/scratch && cat /tmp/scratch && echo $TMPDIR")
	if code != 0 || out != "scratch\n/tmp\n" {
		t.Fatalf("private /tmp: exit %d, %q", code, out)
	}
	if _, err := os.Stat("/tmp/scratch"); err == nil {
		t.Fatal("/tmp/scratch leaked to the host's /tmp")
	}
	out, _ = run(t, s, Options{Dir: dir}, "echo pwned > "+filepath.Join(other, "x"))
	if hint := s.Explain(out, Options{Dir: dir}); !strings.Contains(hint, "read-only") {
		t.Fatalf("a blocked write is not explained: output %q, hint %q", out, hint)
	}
}

func TestHomeAndTheAppsFoldersAreHidden(t *testing.T) {
	home := outsideTmp(t)
	xdg := outsideTmp(t) // XDG_CONFIG_HOME outside home
	for path, content := range map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"):             "PRIVATE KEY",
		filepath.Join(home, ".config", "loopdesk", "api_key"): "sk-home-secret",
		filepath.Join(xdg, "loopdesk", "api_key"):             "sk-xdg-secret",
		filepath.Join(home, "project", "README"):              "visible",
		filepath.Join(home, ".mozilla", "firefox", "key4.db"): "browser",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	s := detect(t)
	dir := filepath.Join(home, "project") // the folder inside home stays visible and writable
	script := fmt.Sprintf(`cat %[1]s/.ssh/id_ed25519 %[1]s/.config/loopdesk/api_key %[2]s/loopdesk/api_key %[1]s/.mozilla/firefox/key4.db; `+
		`ls -A %[1]s; cat README; echo new > new.txt; touch ~/cache-file && echo home-writable`, home, xdg)
	out, _ := run(t, s, Options{Dir: dir}, script)
	for _, secret := range []string{"PRIVATE KEY", "sk-home-secret", "sk-xdg-secret", "browser"} {
		if strings.Contains(out, secret) {
			t.Fatalf("the sandbox read %q: %s", secret, out)
		}
	}
	if !strings.Contains(out, "visible") || !strings.Contains(out, "home-writable") {
		t.Fatalf("the folder inside home or the throwaway home is not usable: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "new.txt")); string(b) != "new\n" {
		t.Fatalf("write inside the folder in home lost: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "cache-file")); err == nil {
		t.Fatal("a write to the throwaway home reached the real home")
	}
	if hint := s.Explain(out, Options{Dir: dir}); !strings.Contains(hint, "home folder") {
		t.Fatalf("reading the hidden home is not explained: %q", hint)
	}
}

func TestNetworkOnlyWhenAllowed(t *testing.T) {
	s := detect(t)
	dir := folder(t)
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
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port)

	out, code := run(t, s, Options{Dir: dir}, script)
	if code == 0 || strings.Contains(out, "hello") {
		t.Fatalf("reached the host's loopback server without network: exit %d %q", code, out)
	}
	if hint := s.Explain(out, Options{Dir: dir}); !strings.Contains(hint, "no network") {
		t.Fatalf("the refused connection is not explained: output %q hint %q", out, hint)
	}
	out, code = run(t, s, Options{Dir: dir, Network: true}, script)
	if code != 0 || out != "hello from the host\n" {
		t.Fatalf("with network: exit %d %q", code, out)
	}
}

func TestEverydayToolsWork(t *testing.T) {
	s := detect(t)
	dir := folder(t)
	for _, c := range []struct{ script, want string }{
		{"go version", "go version go1."},
		{"python3 -c 'print(6*7)'", "42\n"},
		{"git init -q . && echo hi > a && git status --short", "?? a\n"},
		{"ls -A /run | grep -v " + helperName + " | wc -l", "0\n"}, // sockets hidden
	} {
		out, code := run(t, s, Options{Dir: dir}, c.script)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %q, want %q", c.script, code, out, c.want)
		}
	}
}

func TestTheAppsProcessesAreInvisible(t *testing.T) {
	s := detect(t)
	out, code := run(t, s, Options{Dir: folder(t)}, fmt.Sprintf("cat /proc/%d/environ; ls /proc | grep -c '^[0-9]'", os.Getpid()))
	if code != 0 || !strings.Contains(out, "No such file") {
		t.Fatalf("exit %d: %q", code, out)
	}
	if n := strings.TrimSpace(out[strings.LastIndexByte(strings.TrimSpace(out), '\n')+1:]); n > "5" {
		t.Fatalf("the sandbox sees %s processes", n)
	}
}

func TestDetectWithoutBwrapSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Detect(context.Background())
	var ue *UnavailableError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "apt-get install bubblewrap") || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("message does not name the fix: %v", err)
	}
}

func TestProbeFailureNamesUserNamespaces(t *testing.T) {
	err := probeFailure("bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.", errors.New("exit status 1"))
	if !strings.Contains(err.Error(), "user namespaces") || !strings.Contains(err.Error(), "sysctl") {
		t.Fatalf("got %v", err)
	}
}

func TestParseMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		ok   bool
	}{{"", ModeBestEffort, true}, {"auto", ModeBestEffort, true}, {"ON", ModeOn, true}, {" off ", ModeOff, true}, {"yes", "", false}} {
		got, err := ParseMode(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseMode(%q) = %q, %v", c.in, got, err)
		}
	}
}

func TestExplain(t *testing.T) {
	s := &Sandbox{home: "/home/ann"}
	in := Options{Dir: "/home/ann/proj"}
	for _, c := range []struct {
		name, out string
		o         Options
		want      string
	}{
		{"read-only", "touch: cannot touch '/etc/x': Read-only file system", in, "read-only"},
		{"no network", "curl: (6) Could not resolve host: example.com", in, "no network"},
		{"network allowed", "curl: (6) Could not resolve host: example.com", Options{Dir: in.Dir, Network: true}, ""},
		{"home", "cat: /home/ann/.ssh/id_rsa: No such file or directory", in, "home folder"},
		{"file missing in the folder", "cat: /home/ann/proj/x: No such file or directory", in, ""},
		{"plain failure", "make: *** [all] Error 1", in, ""},
	} {
		got := s.Explain(c.out, c.o)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want it to mention %q", c.name, got, c.want)
		}
	}
}
