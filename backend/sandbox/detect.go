package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrUnavailable is what every Detect failure wraps.
var ErrUnavailable = errors.New("no sandbox can be made")

// UnavailableError says why no sandbox can be made and what fixes it, in words a
// person can act on.
type UnavailableError struct {
	Reason string // "bubblewrap (bwrap) is not installed"
	Fix    string // "install it: sudo apt-get install bubblewrap"
	Detail string // bwrap's own message, when it ran and failed
}

func (e *UnavailableError) Error() string {
	msg := "no sandbox: " + e.Reason + "; to fix: " + e.Fix
	if e.Detail != "" {
		msg += " (bwrap said: " + e.Detail + ")"
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

const probeTimeout = 10 * time.Second

// Detect finds bwrap on PATH and runs `true` inside the same sandbox commands get
// (with a throwaway folder), so a sandbox that cannot be built is found at start-up
// rather than on the first command. Errors are *UnavailableError.
func Detect(ctx context.Context) (*Sandbox, error) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, &UnavailableError{
			Reason: "bubblewrap (bwrap) is not installed or not on PATH",
			Fix:    "install it (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap)",
		}
	}
	s := &Sandbox{bwrap: path, version: "bubblewrap"}
	s.home, s.hidden = hiddenFolders()
	if out, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
		s.version = strings.TrimSpace(string(out))
	}
	dir, err := os.MkdirTemp("", "loopdesk-probe-")
	if err != nil {
		return nil, fmt.Errorf("detect sandbox: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "true")
	if err := s.Confine(cmd, Options{Dir: dir}); err != nil {
		return nil, fmt.Errorf("detect sandbox: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, probeFailure(strings.TrimSpace(stderr.String()), err)
	}
	s.addLandlock(ctx, dir)
	return s, nil
}

// addLandlock adds the Landlock layer when the kernel has it and the helper is
// installed and works in the sandbox; otherwise it records why not. bubblewrap
// alone enforces the whole contract, so a missing second layer is not an error.
func (s *Sandbox) addLandlock(ctx context.Context, dir string) {
	abi := LandlockABI()
	if abi < 1 {
		s.noLL = "the kernel has no Landlock"
		return
	}
	helper := findHelper()
	if helper == "" {
		s.noLL = helperName + " is not installed next to the app or on PATH"
		return
	}
	s.helper, s.abi = helper, abi
	cmd := exec.CommandContext(ctx, "true")
	if err := s.Confine(cmd, Options{Dir: dir}); err != nil {
		s.helper, s.noLL = "", err.Error()
		return
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		s.helper, s.noLL = "", fmt.Sprintf("%s failed: %v %s", helperName, err, strings.TrimSpace(string(out)))
	}
}

// findHelper looks for the Landlock helper next to the running binary, then on PATH.
func findHelper() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), helperName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(helperName); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}

// probeFailure names the usual causes of a bwrap that is installed but cannot
// build the sandbox: user namespaces disabled or restricted.
func probeFailure(stderr string, err error) error {
	detail := stderr
	if detail == "" {
		detail = err.Error()
	}
	low := strings.ToLower(stderr)
	switch {
	case strings.Contains(low, "namespace") || strings.Contains(low, "uid map") ||
		strings.Contains(low, "operation not permitted") || strings.Contains(low, "permission denied"):
		return &UnavailableError{
			Reason: "bubblewrap is installed but this system does not let it create user namespaces",
			Fix: "allow unprivileged user namespaces: on Debian `sudo sysctl kernel.unprivileged_userns_clone=1`; " +
				"on Ubuntu 24.04+ `sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile for bwrap); " +
				"check `sysctl user.max_user_namespaces` is above 0; inside a container, run it with user namespaces allowed",
			Detail: detail,
		}
	}
	return &UnavailableError{
		Reason: "bubblewrap is installed but could not build the sandbox",
		Fix:    "run `bwrap --ro-bind / / --unshare-all true` in a terminal to see why",
		Detail: detail,
	}
}
