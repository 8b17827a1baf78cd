package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loopdesk/loopdesk/backend/cli"
)

// stubRecord, when set, makes this test binary the stub window program: it writes what it
// was started with to that file and exits.
const stubRecord = "LOOPDESK_TEST_STUB_RECORD"

// started is what the stub window program records.
type started struct {
	Pid  int
	Args []string
	Env  []string
}

func TestMain(m *testing.M) {
	if out := os.Getenv(stubRecord); out != "" {
		data, _ := json.Marshal(started{Pid: os.Getpid(), Args: os.Args, Env: os.Environ()})
		if err := os.WriteFile(out, data, 0o600); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

var built struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// buildCLI builds this command once per test binary as the Makefile does.
func buildCLI(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "loopdesk-cli-"); built.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,sqlite_fts5",
			"-o", filepath.Join(built.dir, "loopdesk"), ".")
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return filepath.Join(built.dir, "loopdesk")
}

// installCLI copies the built command into a folder of its own (it looks for the window
// program beside the file it runs from, so a link would not do) and returns its path.
func installCLI(t *testing.T) string {
	t.Helper()
	src, err := os.Open(buildCLI(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(t.TempDir(), "loopdesk")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// The command people run must not make every command wait for the window's libraries.
func TestCommandsLinkNoWindowLibraries(t *testing.T) {
	ldd, err := exec.LookPath("ldd")
	if err != nil {
		t.Skip("no ldd on PATH to list the libraries the command links")
	}
	out, err := exec.Command(ldd, buildCLI(t)).CombinedOutput()
	if err != nil {
		t.Fatalf("ldd: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "libc.so") {
		t.Fatalf("ldd names no libc; did it read the binary?\n%s", out)
	}
	if window := regexp.MustCompile(`lib(webkit2gtk|javascriptcoregtk|gtk|gdk)-[^ ]*`).FindAllString(string(out), -1); len(window) > 0 {
		t.Errorf("loopdesk links the window's libraries %v:\n%s", window, out)
	}
}

// A window launch (no command, or a folder) becomes the window program beside loopdesk: the
// same process, the same arguments, the same environment. A key from the configuration is
// not put into it; one that came in the environment stays for the window to hide itself.
func TestWindowLaunchExecsTheWindowProgram(t *testing.T) {
	stub, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const configKey, envKey = "sk-config-secret-8d1f", "sk-env-secret-2b7c"
	ws := t.TempDir()
	tests := []struct {
		name string
		args []string
		env  []string
	}{
		{name: "no command"},
		{name: "a folder", args: []string{ws}},
		{name: "key in the environment", env: []string{"OPENAI_API_KEY=" + envKey}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin := installCLI(t)
			if err := os.Symlink(stub, filepath.Join(filepath.Dir(bin), cli.WindowProgram)); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			cfg := filepath.Join(home, "config")
			if err := os.MkdirAll(filepath.Join(cfg, "loopdesk"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cfg, "loopdesk", "api_key"), []byte(configKey+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			record := filepath.Join(home, "started.json")
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + cfg, "XDG_DATA_HOME=" + filepath.Join(home, "data"),
				"DISPLAY=:97", "PATH=" + os.Getenv("PATH"), stubRecord + "=" + record}, tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("loopdesk %v: %v\n%s", tc.args, err, out)
			}
			data, err := os.ReadFile(record)
			if err != nil {
				t.Fatalf("the window program did not run: %v\n%s", err, out)
			}
			var got started
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if got.Pid != cmd.Process.Pid {
				t.Errorf("the window program ran as pid %d, loopdesk was %d: not exec'd in place", got.Pid, cmd.Process.Pid)
			}
			if want := append([]string{bin}, tc.args...); !slices.Equal(got.Args, want) {
				t.Errorf("the window program got %q, want %q", got.Args, want)
			}
			if !slices.Equal(sorted(got.Env), sorted(cmd.Env)) {
				t.Errorf("the window program's environment\n%q\nis not loopdesk's\n%q", got.Env, cmd.Env)
			}
			if strings.Contains(string(data), configKey) {
				t.Errorf("the key from the configuration reached the window program's environment: %s", data)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// Without the window program a window launch fails in one line that says where it looked.
func TestMissingWindowProgramSaysWhereItLooked(t *testing.T) {
	if _, err := os.Stat(filepath.Join(cli.WindowDir, cli.WindowProgram)); err == nil {
		t.Skipf("%s/%s is installed on this machine: loopdesk would find it", cli.WindowDir, cli.WindowProgram)
	}
	bin := installCLI(t)
	home := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "DISPLAY=:97"}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitOther {
		t.Fatalf("loopdesk without its window program: %v, want exit %d\n%s", err, cli.ExitOther, out)
	}
	msg := strings.TrimSpace(string(out))
	for _, want := range []string{"loopdesk: cannot open the window", filepath.Join(filepath.Dir(bin), cli.WindowProgram),
		filepath.Join(cli.WindowDir, cli.WindowProgram)} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("the error is more than one line:\n%s", msg)
	}
}
