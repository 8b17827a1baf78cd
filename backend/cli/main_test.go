package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMainDispatch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	display := map[string]string{"DISPLAY": ":0"}
	Version, Commit = "1.2.3", "abc123"
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		window     bool
		folder     string
		code       int
		stdout     string // a substring; "" means stdout must be empty
		stderr     string // a substring; "" means stderr must be empty
		usageOnErr bool
	}{
		{name: "no args opens the window", env: display, window: true},
		{name: "version", args: []string{"--version"}, stdout: "loopdesk 1.2.3 (commit abc123)"},
		{name: "version word", args: []string{"version"}, stdout: "loopdesk 1.2.3 (commit abc123)"},
		{name: "help", args: []string{"--help"}, stdout: "loopdesk settings"},
		{name: "unknown command", args: []string{"frobnicate"}, env: display, code: 2, stderr: `unknown command or folder "frobnicate"`, usageOnErr: true},
		{name: "unknown flag", args: []string{"--frobnicate"}, env: display, code: 2, stderr: "unknown flag --frobnicate", usageOnErr: true},
		{name: "a file is not a folder", args: []string{file}, env: display, code: 2, stderr: "is not a folder", usageOnErr: true},
		{name: "two folders", args: []string{dir, dir}, env: display, code: 2, stderr: "one folder at most", usageOnErr: true},
		{name: "a folder opens the window there", args: []string{"."}, env: display, window: true, folder: dir},
		{name: "folder after --", args: []string{"--", dir}, env: display, window: true, folder: dir},
		{name: "wayland is a display", env: map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, window: true},
		{name: "no display is one line", code: 1, stderr: "cannot open the window: no display"},
		{name: "no display with a bad flag is still usage", args: []string{"-x"}, code: 2, stderr: "unknown flag -x", usageOnErr: true},
		{name: "run without a prompt", args: []string{"run"}, code: 2, stderr: "missing PROMPT"},
		{name: "sessions unknown", args: []string{"sessions", "frob"}, code: 2, stderr: "frob"},
		{name: "settings bad flag", args: []string{"settings", "--nope"}, code: 2, stderr: "-nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			l := Main(tc.args, func(k string) string { return tc.env[k] }, strings.NewReader(""), &out, &errb)
			if l.Window != tc.window || l.Folder != tc.folder || l.Code != tc.code {
				t.Fatalf("Main(%q) = %+v, want window=%v folder=%q code=%d; stderr: %s",
					tc.args, l, tc.window, tc.folder, tc.code, errb.String())
			}
			check := func(what, got, want string) {
				if want == "" && got != "" || !strings.Contains(got, want) {
					t.Errorf("%s = %q, want it to contain %q", what, got, want)
				}
			}
			check("stdout", out.String(), tc.stdout)
			check("stderr", errb.String(), tc.stderr)
			if tc.usageOnErr && !strings.Contains(errb.String(), "usage: loopdesk") {
				t.Errorf("stderr has no usage: %q", errb.String())
			}
			if strings.Contains(errb.String(), "goroutine") || strings.Contains(errb.String(), "panic") {
				t.Errorf("stderr has a stack trace: %q", errb.String())
			}
		})
	}
}

func TestParseWindowArgsOfASecondLaunch(t *testing.T) {
	wd := t.TempDir()
	sub := filepath.Join(wd, "project")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	tests := []struct {
		args []string
		want string
		err  string
	}{
		{args: nil, want: ""},
		{args: []string{"project"}, want: sub},            // relative to the second process's directory
		{args: []string{"./project/"}, want: sub},         // cleaned
		{args: []string{sub}, want: sub},                  // absolute
		{args: []string{"~"}, want: filepath.Clean(home)}, // an unexpanded tilde
		{args: []string{"missing"}, err: `unknown command or folder "missing"`},
		{args: []string{"--devserver", "x"}, err: "unknown flag --devserver"}, // release build: no dev flags
	}
	for _, tc := range tests {
		got, err := ParseWindowArgs(tc.args, wd)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseWindowArgs(%q) error = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseWindowArgs(%q) = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}
