package mcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a stdio server: its own process group, killed with SIGKILL when
// the app dies (Pdeathsig), stdin/stdout as the MCP connection and stderr into
// the server's log. The pipes are os.Pipes, not exec's StdoutPipe, so reaping
// the process never races the SDK's reads.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	done   chan struct{} // closed once the process was reaped; state is set before
	state  *os.ProcessState
}

// startProcess starts s's command. The environment is serverEnv of the app's.
func startProcess(s ServerConfig, stderr io.Writer) (*process, error) {
	lookup := osLookup
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = expand(a, lookup)
	}
	cmd := exec.Command(expand(s.Command, lookup), args...)
	cmd.Env = serverEnv(os.Environ(), s.Env)
	cmd.Dir = s.Cwd
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %s: %w", s.Command, err)
	}
	inR.Close() // the child holds the only copies now
	outW.Close()
	p := &process{cmd: cmd, stdin: inW, stdout: outR, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.done)
	}()
	return p, nil
}

// transport is the SDK connection over the process's stdin/stdout. Closing it
// closes both pipe ends, which tells a well-behaved server to exit. Lines on
// stdout that are not JSON go to log instead of breaking the connection.
func (p *process) transport(log io.Writer) sdk.Transport {
	return &sdk.IOTransport{Reader: newStdoutFilter(p.stdout, log), Writer: p.stdin}
}

// stdoutFilter passes the lines of a server's stdout that start with '{' or
// '[' (JSON-RPC) and writes every other line to log. Servers that print a
// banner or debug output on stdout are common; the SDK's decoder would end the
// connection at the first such byte.
type stdoutFilter struct {
	r       *bufio.Reader
	c       io.Closer
	log     io.Writer
	atStart bool // at the first byte of a line
	pass    bool // inside a JSON line
}

func newStdoutFilter(rc io.ReadCloser, log io.Writer) *stdoutFilter {
	return &stdoutFilter{r: bufio.NewReaderSize(rc, 64<<10), c: rc, log: log, atStart: true}
}

func (f *stdoutFilter) Close() error { return f.c.Close() }

// looksLikeJSONRPC tells a JSON-RPC line from a log line by its start: an
// object opens with '{' then '"' (or '}'), a batch with '[' then '{'. So
// "[INFO] ready" and "{level: info}" go to the log.
func (f *stdoutFilter) looksLikeJSONRPC() bool {
	// Ask for one byte more only while the line so far is the opening
	// character and blanks: the rest of the line must still come, so the wait
	// ends, and a short complete message is never waited past.
	for n := 2; n <= 64; n++ {
		head, err := f.r.Peek(n)
		next := bytes.TrimLeft(head[min(1, len(head)):], " \t\r")
		if len(next) > 0 {
			switch head[0] {
			case '{':
				return next[0] == '"' || next[0] == '}'
			case '[':
				return next[0] == '{'
			}
			return false
		}
		if err != nil || bytes.IndexByte(head, '\n') >= 0 {
			return false
		}
	}
	return false
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for {
		if f.atStart {
			b, err := f.r.Peek(1)
			if err != nil {
				return 0, err
			}
			if b[0] == '\n' || b[0] == '\r' || b[0] == ' ' || b[0] == '\t' {
				_, _ = f.r.ReadByte()
				continue
			}
			f.pass = f.looksLikeJSONRPC()
			if !f.pass {
				_, _ = io.WriteString(f.log, "stdout (not JSON-RPC, ignored): ")
			}
			f.atStart = false
		}
		if _, err := f.r.Peek(1); err != nil {
			return 0, err
		}
		data, _ := f.r.Peek(f.r.Buffered())
		if f.pass {
			data = data[:min(len(data), len(p))]
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
			f.atStart = true
		}
		if f.pass {
			n := copy(p, data)
			_, _ = f.r.Discard(n)
			return n, nil
		}
		_, _ = f.log.Write(data)
		_, _ = f.r.Discard(len(data))
	}
}

// exitCode waits up to wait for the process to be reaped and returns its exit
// code (128+N for death by signal N), or false if it is still running.
func (p *process) exitCode(wait time.Duration) (int, bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		return 0, false
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), true
	}
	return p.state.ExitCode(), true
}

// stop closes stdin, gives the server grace to exit, then kills its whole
// process group (which also takes grandchildren, e.g. node under npx) and
// waits for it to be reaped.
func (p *process) stop(grace time.Duration) {
	_ = p.stdin.Close()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
	p.killGroup()
	<-p.done
	_ = p.stdout.Close()
}

func (p *process) killGroup() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // ESRCH when already gone
}

// logBuffer keeps the last max bytes written to it (a server's stderr). It is
// safe for concurrent use: the process writes while the window reads.
type logBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newLogBuffer(max int) *logBuffer { return &logBuffer{max: max} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if over := len(l.buf) - l.max; over > 0 {
		l.buf = append(l.buf[:0], l.buf[over:]...)
	}
	return len(p), nil
}

// String is the whole kept log.
func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}

// Tail is at most the last n lines and 2 KiB of the log, for a status line.
func (l *logBuffer) Tail(n int) string {
	s := strings.TrimRight(l.String(), "\n")
	if len(s) > 2048 {
		s = s[len(s)-2048:]
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// note writes a line of Loopdesk's own into the log (restarts), so a person
// reading it can tell the runs apart.
func (l *logBuffer) note(format string, args ...any) {
	_, _ = fmt.Fprintf(l, "--- loopdesk: "+format+" ---\n", args...)
}
