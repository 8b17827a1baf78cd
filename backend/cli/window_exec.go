package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WindowProgram is the program that opens the window. `loopdesk` itself links no GTK or
// WebKit, so a command pays only for itself (about 170 shared libraries took ~120 ms to load
// before any command ran when one binary did both); a window launch becomes WindowProgram.
const WindowProgram = "loopdesk-window"

// WindowDir is where the package installs WindowProgram, out of PATH: no one runs it by hand.
const WindowDir = "/usr/lib/loopdesk"

// ExecWindow replaces this process with the window program, found by FindWindow, given
// argv (argv[0] included, so GTK and the launcher see the name they saw before) and env. The
// process stays the same one: its pid, its open files and the launcher that waits on it. It
// returns only when the window program cannot be started.
func ExecWindow(argv, env []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot open the window: find this program: %w", err)
	}
	path, err := FindWindow(filepath.Dir(exe), WindowDir)
	if err != nil {
		return err
	}
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("cannot open the window: start %s: %w", path, err)
	}
	return nil // not reached: Exec returns only on failure
}

// FindWindow returns the first dirs/WindowProgram that is an executable file, or an error
// naming every place it looked.
func FindWindow(dirs ...string) (string, error) {
	var looked []string
	for _, d := range dirs {
		p := filepath.Join(d, WindowProgram)
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			looked = append(looked, p+" (not an executable file)")
			continue
		}
		looked = append(looked, p)
	}
	return "", fmt.Errorf("cannot open the window: the window program %s is missing: looked for %s; "+
		"reinstall Loopdesk, or `make build` builds it beside loopdesk", WindowProgram, strings.Join(looked, " and "))
}
