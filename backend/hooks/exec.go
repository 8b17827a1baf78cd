package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// StderrCap is how much of a hook's standard error a hook row keeps.
const StderrCap = 4 << 10

// stdoutCap bounds what is read of a hook's standard output (its JSON answer or context).
const stdoutCap = 1 << 20

// waitDelay is how long a hook that exited (or was killed) may keep its output pipes open
// through a child it left behind before the run stops waiting for them.
const waitDelay = 2 * time.Second

// ran is how one hook process ended.
type ran struct {
	exitCode int // -1: did not exit by itself
	stdout   string
	stderr   string
	duration time.Duration
	failure  string // why it failed to run, timed out or died; "" when it exited
}

// execute runs h's command with stdin, in dir, under h's timeout. The command runs through
// /bin/sh -c (as Claude Code runs hooks) in its own process group; on timeout or when ctx
// ends the whole group is killed, so a child the hook started dies with it.
func execute(ctx context.Context, h Hook, dir string, stdin []byte) ran {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.Command)
	cmd.Dir = dir
	cmd.Env = hookEnv(os.Environ(), dir)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	stdout.max, stderr.max = stdoutCap, StderrCap
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	start := time.Now()
	err := cmd.Run()
	r := ran{exitCode: -1, stdout: stdout.String(), stderr: stderr.String(), duration: time.Since(start)}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		r.exitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.exitCode = -1
		r.failure = fmt.Sprintf("timed out after %s (killed with every process it started)", h.Timeout)
	case ctx.Err() != nil:
		r.exitCode = -1
		r.failure = "cancelled: " + ctx.Err().Error()
	case r.exitCode == -1 && cmd.ProcessState != nil:
		r.failure = "killed by " + cmd.ProcessState.String()
	case err != nil && r.exitCode == -1:
		r.failure = "could not start: " + err.Error()
	case errors.Is(err, exec.ErrWaitDelay):
		// The hook exited; a child kept its output open. Its answer is what arrived.
	}
	return r
}

// hookEnv is the hook's environment: the app's own, without its secrets (a hook is a
// process Loopdesk starts, and what it prints is stored), plus the folder under the name
// Claude Code's hooks use.
func hookEnv(env []string, dir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "OPENAI_API_KEY", name == "ANTHROPIC_API_KEY", strings.HasPrefix(name, "LOOPDESK_"),
			name == "CLAUDE_PROJECT_DIR":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CLAUDE_PROJECT_DIR="+dir, "LOOPDESK_PROJECT_DIR="+dir)
}

// capped keeps the first max bytes written and drops the rest (the writer never fails, so
// a chatty hook is not killed by a broken pipe).
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
			c.cut = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.cut = true
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
