package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The window program is taken from the first place that has it as an executable file; a file
// there that cannot run is named as such rather than skipped in silence.
func TestFindWindowTakesTheFirstPlaceThatHasIt(t *testing.T) {
	beside, lib, none := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{beside, lib} {
		if err := os.WriteFile(filepath.Join(d, WindowProgram), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := FindWindow(beside, lib); err != nil || got != filepath.Join(beside, WindowProgram) {
		t.Errorf("FindWindow(beside, lib) = %q, %v; want the one beside", got, err)
	}
	if got, err := FindWindow(none, lib); err != nil || got != filepath.Join(lib, WindowProgram) {
		t.Errorf("FindWindow(none, lib) = %q, %v; want the one in lib", got, err)
	}
	if err := os.Chmod(filepath.Join(beside, WindowProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := FindWindow(beside, none)
	if err == nil {
		t.Fatal("FindWindow found a program that cannot run")
	}
	for _, want := range []string{filepath.Join(beside, WindowProgram) + " (not an executable file)", filepath.Join(none, WindowProgram)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
}
