package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	return s, nil
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
