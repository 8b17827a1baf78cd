package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineNeverPanics runs the real binary, built as the Makefile
// builds it (the version stamped with -ldflags -X), the way a person types it.
func TestCommandLineNeverPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "loopdesk")
	build := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,sqlite_fts5",
		"-ldflags", "-X github.com/loopdesk/loopdesk/backend/cli.Version=9.8.7 -X github.com/loopdesk/loopdesk/backend/cli.Commit=c0ffee",
		"-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
