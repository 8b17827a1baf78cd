package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/testbus"
)

var built struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// buildBinary builds the app once per test binary, as the Makefile does (the version
// stamped in with -ldflags -X): loopdesk (./cmd/loopdesk) and this package, the window
// program loopdesk execs, beside it. It returns loopdesk's path.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "loopdesk-bin-")
		for out, pkg := range map[string]string{"loopdesk": "./cmd/loopdesk", cli.WindowProgram: "."} {
			if built.err != nil {
				return
			}
			cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,sqlite_fts5",
				"-ldflags", "-X github.com/loopdesk/loopdesk/backend/cli.Version=9.8.7 -X github.com/loopdesk/loopdesk/backend/cli.Commit=c0ffee",
				"-o", filepath.Join(built.dir, out), pkg)
			built.out, built.err = cmd.CombinedOutput()
		}
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return filepath.Join(built.dir, "loopdesk")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// TestCommandLineNeverPanics runs the real binaries, built as the Makefile
// builds them (the version stamped with -ldflags -X), the way a person types it:
// a window launch goes through loopdesk into the window program.
func TestCommandLineNeverPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	home := t.TempDir()
	base := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "PATH=" + os.Getenv("PATH")}
	tests := []struct {
		name   string
		args   []string
		env    []string
		code   int
		stdout string
		stderr string
	}{
		{name: "version", args: []string{"--version"}, code: 0, stdout: "loopdesk 9.8.7 (commit c0ffee)\n"},
		{name: "help", args: []string{"--help"}, code: 0, stdout: "usage: loopdesk"},
		{name: "unknown command", args: []string{"frobnicate"}, env: []string{"DISPLAY=:0"}, code: 2, stderr: "usage: loopdesk"},
		{name: "unknown flag", args: []string{"--frobnicate"}, env: []string{"DISPLAY=:0"}, code: 2, stderr: "unknown flag --frobnicate"},
		{name: "no display", code: 1, stderr: "loopdesk: cannot open the window: no display"},
		// A display that is named but not there: GTK's init fails inside wails.Run.
		{name: "unreachable display", env: []string{"DISPLAY=:87"}, code: 1, stderr: "loopdesk: cannot open the window: GTK could not open the display :87"},
		{name: "settings", args: []string{"settings"}, code: 0, stdout: "approval_mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(append([]string{}, base...), tc.env...)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) || (tc.stdout == "" && out.Len() > 0) {
				t.Errorf("stdout %q, want %q", out.String(), tc.stdout)
			}
			if !strings.Contains(errb.String(), tc.stderr) || (tc.stderr == "" && errb.Len() > 0) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.stderr)
			}
			if s := errb.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
				t.Errorf("a stack trace on stderr:\n%s", s)
			}
			if tc.code == 1 && strings.Count(strings.TrimSpace(errb.String()), "\n") > 0 {
				t.Errorf("the failure is more than one line:\n%s", errb.String())
			}
		})
	}
}

// startXvfb runs an X server on a free display and returns its name.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("Xvfb (scripts/bootstrap.sh test installs xvfb): %v", err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Xvfb writes the display number once it accepts connections.
	n, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb gave no display: %v", err)
	}
	return ":" + strings.TrimSpace(n)
}

// A second `loopdesk FOLDER` while the window is open hands the folder to
// that window and ends at once, without a second window.
func TestSecondLaunchGoesToTheOpenWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the real window")
	}
	bin := buildBinary(t)
	display := startXvfb(t)
	bus := testbus.Start(t)
	home := t.TempDir()
	db := filepath.Join(home, "loopdesk.db")
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "DISPLAY=" + display, "DBUS_SESSION_BUS_ADDRESS=" + bus,
		"LOOPDESK_DB=" + db, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data")}
	first := exec.Command(bin)
	first.Env = env
	var firstErr lockedBuffer // written by exec's copying goroutine while the test reads it
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	waited := make(chan struct{}) // closed once first.Wait returned: the cleanup waits on it, not on exited
	go func() { exited <- first.Wait(); close(waited) }()
	t.Cleanup(func() { first.Process.Kill(); <-waited })

	client, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	name := "org.wails_app_" + strings.NewReplacer(".", "_", "-", "_").Replace(desktop.InstanceID(db)) + ".SingleInstance"
	deadline := time.Now().Add(90 * time.Second) // a loaded machine starts WebKit slowly
	for {
		var owned bool
		if err := client.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil {
			t.Fatal(err)
		}
		if owned {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the first window exited: %v\n%s", err, firstErr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window never took the single-instance name %s\n%s", name, firstErr.String())
		}
	}

	project := t.TempDir()
	second := exec.Command(bin, project)
	second.Env = env
	done := make(chan struct{})
	var out []byte
	go func() { out, err = second.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		second.Process.Kill()
		<-done
		t.Fatalf("the second launch did not hand off; it ran for 30 s:\n%s", out)
	}
	if err != nil || len(out) > 0 {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	select {
	case err := <-exited:
		t.Fatalf("the open window exited after the second launch: %v\n%s", err, firstErr.String())
	default:
	}
	if strings.Contains(firstErr.String(), "second launch") {
		t.Errorf("the open window could not use the folder:\n%s", firstErr.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
