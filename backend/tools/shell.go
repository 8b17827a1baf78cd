package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/sandbox"
)

// Shell limits.
const (
	shellDefaultTimeout = 120 * time.Second
	shellMaxTimeout     = 3600
	// ShellOutputCap is the output kept for the model: its first and last halves.
	ShellOutputCap = 64 << 10
	// pipeDrainGrace is how long output is still read after the process group was
	// killed: a process that left the group (setsid) may hold the pipe open forever.
	pipeDrainGrace = 2 * time.Second
)

type shellArgs struct {
	Command        string `json:"command" jsonschema:"minLength=1,description=Command line run with bash -c in the workspace root"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"minimum=1,maximum=3600,description=Kill the command and everything it started after this many seconds (default 120)"`
	Network        bool   `json:"network,omitempty" jsonschema:"description=The command needs the network: inside the sandbox it has none otherwise. May need the person's approval"`
	Unsandboxed    bool   `json:"unsandboxed,omitempty" jsonschema:"description=Run outside the sandbox with the person's full rights. Needs the person's approval; only when the sandbox blocked something the task needs"`
}

// shellTool's zero value runs commands unconfined; ShellTool builds one that
// confines them.
type shellTool struct{ sandbox ShellSandbox }

func (shellTool) Name() string { return "run_shell_command" }
func (t shellTool) Description() string {
	d := "Run a command with bash -c in the workspace root. stdin is closed. stdout and stderr are merged; long output keeps its beginning and end. The command and every process it started are killed on timeout (default 120 s) and when it ends, so do not start background servers."
	if t.sandbox.Box != nil && t.sandbox.Mode != sandbox.ModeOff && t.sandbox.Mode != "" {
		d += " Commands run in a sandbox: only the workspace and a private /tmp are writable and the home folder is empty."
		if !t.sandbox.Network {
			d += ` There is no network unless you set "network": true.`
		}
	}
	return d
}
func (shellTool) Schema() json.RawMessage { return schemaFor[shellArgs]() }
func (shellTool) ReadOnly() bool          { return false }

func (t shellTool) Execute(ctx context.Context, ws *Workspace, raw json.RawMessage, out func(string)) Result {
	a, err := decodeArgs[shellArgs](raw)
	if err != nil {
		return errorf("%v", err)
	}
	if ws == nil {
		return errorf("run_shell_command: %v", ErrNoWorkspace)
	}
	if ws.isClosed() {
		return errorf("run_shell_command: %v", ErrWorkspaceClosed)
	}
	timeout := shellDefaultTimeout
	if a.TimeoutSeconds > 0 {
		timeout = time.Duration(min(a.TimeoutSeconds, shellMaxTimeout)) * time.Second
	}
	how, refusal := t.sandbox.plan(ws.Root(), a)
	if refusal != "" {
		return errorf("run_shell_command: %s", refusal)
	}
	capture := newHeadTail(ShellOutputCap)
	state, ended, err := runShell(ctx, ws.Root(), a.Command, timeout, capture, out, how.confine())
	if err != nil {
		return errorf("run_shell_command: %v", err)
	}
	code := exitCode(state)
	res := Result{Meta: Meta{ExitCode: &code, Truncated: capture.Cut() > 0, Sandboxed: how.box != nil}}
	text := capture.String()
	hint := how.explain(text) // judged on the command's own output only
	switch {
	case ended == endTimeout:
		res.IsError = true
		text += fmt.Sprintf("\n[timed out after %s; the command and all its child processes were killed]", timeout)
	case ended == endCancelled:
		res.IsError = true
		text += "\n[cancelled; the command and all its child processes were killed]"
	case code != 0:
		res.IsError = true
		text += fmt.Sprintf("\n[exit code %d]", code)
	case text == "":
		text = "(no output)"
	}
	if hint != "" && res.IsError {
		text += "\n" + hint
	}
	res.Content = text
	return res
}

type endReason int

const (
	endExited endReason = iota
	endTimeout
	endCancelled
)

// runShell runs command in its own process group and always kills that group before
// returning, so nothing it started outlives the call. Output from stdout and stderr
// arrives through one pipe, in the order it was written, into capture and out.
// confine, when not nil, rewrites the command to run in a sandbox before it starts.
func runShell(ctx context.Context, dir, command string, timeout time.Duration, capture *headTail, out func(string), confine func(*exec.Cmd) error) (*os.ProcessState, endReason, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, endExited, fmt.Errorf("create pipe: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = pw
	cmd.Stderr = pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(shellEnv(os.Environ()), "PAGER=cat", "GIT_PAGER=cat", "TERM=dumb")
	if confine != nil {
		if err := confine(cmd); err != nil {
			pw.Close()
			return nil, endExited, fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, endExited, fmt.Errorf("start bash: %w", err)
	}
	pw.Close() // the children hold the only write ends now
	pgid := cmd.Process.Pid

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				capture.Write(buf[:n])
				if out != nil {
					out(string(buf[:n]))
				}
			}
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	ended := endExited
	select {
	case <-waitDone:
	case <-timer.C:
		ended = endTimeout
	case <-ctx.Done():
		ended = endCancelled
	}
	// Kill the whole group: on timeout and cancel, and after a normal exit for any
	// background process the command left behind.
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH when the group is already gone
	if ended != endExited {
		<-waitDone
	}
	select {
	case <-readDone:
	case <-time.After(pipeDrainGrace):
		_ = pr.SetReadDeadline(time.Now()) // an escaped process holds the pipe: stop reading
		<-readDone
	}
	return cmd.ProcessState, ended, nil
}

// shellEnv drops the app's own secrets from the environment commands see: the model
// could otherwise print the API key into a tool result, which is stored and exported.
func shellEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "OPENAI_API_KEY" || strings.HasPrefix(name, "LOOPDESK_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// exitCode follows the shell's convention: 128+N for death by signal N.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// CapOutput caps s as shell output is capped: at most about limit bytes, its
// first and last halves kept and the cut said between them. cut is the number
// of bytes dropped (0 when s fits). For tools outside this package (MCP).
func CapOutput(s string, limit int) (capped string, cut int64) {
	if len(s) <= limit {
		return s, 0
	}
	h := newHeadTail(limit)
	h.Write([]byte(s))
	return h.String(), h.Cut()
}

// headTail keeps the first and last half of a stream in fixed memory, counting what
// falls between. The tail is a ring buffer, so memory stays at limit bytes however
// much output flows through.
type headTail struct {
	head  []byte
	tail  []byte // ring of cap limit/2, filled once head is full
	pos   int    // next write position in tail when the ring is full
	full  bool
	total int64
	half  int
}

func newHeadTail(limit int) *headTail {
	half := limit / 2
	return &headTail{head: make([]byte, 0, half), tail: make([]byte, 0, half), half: half}
}

// Write is called from one reader goroutine; String after it finished.
func (h *headTail) Write(p []byte) {
	h.total += int64(len(p))
	if room := h.half - len(h.head); room > 0 {
		n := min(room, len(p))
		h.head = append(h.head, p[:n]...)
		p = p[n:]
	}
	if len(p) >= h.half {
		p = p[len(p)-h.half:]
		h.tail = append(h.tail[:0], p...)
		h.pos, h.full = 0, true
		return
	}
	for len(p) > 0 {
		if !h.full {
			n := min(h.half-len(h.tail), len(p))
			h.tail = append(h.tail, p[:n]...)
			p = p[n:]
			if len(h.tail) == h.half {
				h.full, h.pos = true, 0
			}
			continue
		}
		n := copy(h.tail[h.pos:], p)
		h.pos = (h.pos + n) % h.half
		p = p[n:]
	}
}

// Cut is the number of bytes dropped between head and tail.
func (h *headTail) Cut() int64 {
	return h.total - int64(len(h.head)) - int64(len(h.tail))
}

func (h *headTail) String() string {
	tail := h.tail
	if h.full && h.pos != 0 {
		tail = append(append(make([]byte, 0, h.half), h.tail[h.pos:]...), h.tail[:h.pos]...)
	}
	cut := h.Cut()
	if cut == 0 {
		return string(h.head) + string(tail)
	}
	head := h.head
	// Do not split a UTF-8 character at either side of the cut.
	for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n…[%d bytes of output cut]…\n%s", head, cut, tail)
}
