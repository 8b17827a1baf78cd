package stack

import (
	"context"
	"sync"

	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Sandbox is what sandbox.Detect found: a sandbox, or why none can be made. The window and
// the CLI detect once (SandboxProbe) and build each run's tools.ShellSandbox from it.
type Sandbox struct {
	Box     *sandbox.Sandbox
	Missing error // Detect's error when Box is nil
}

// DetectSandbox runs sandbox.Detect once (it starts bwrap to prove the sandbox works).
func DetectSandbox(ctx context.Context) Sandbox {
	box, err := sandbox.Detect(ctx)
	return Sandbox{Box: box, Missing: err}
}

// Shell is the shell sandbox of one run: the session's mode and network choice over what
// was detected.
func (s Sandbox) Shell(mode sandbox.Mode, network bool) tools.ShellSandbox {
	return tools.ShellSandbox{Mode: mode, Box: s.Box, Missing: s.Missing, Network: network}
}

// SandboxProbe detects the sandbox once: in the background from Start, or on the first Get,
// whichever comes first. The window starts it once the page has loaded, so the two bwrap
// processes Detect starts (new namespaces each) do not compete with GTK and WebKit for the
// CPU while the window opens (docs/benchmarks.md, "The SDKs' clients out of the binary");
// the CLI starts it at once. It is safe for concurrent use.
type SandboxProbe struct {
	once   sync.Once
	done   chan struct{}
	v      Sandbox
	detect func() Sandbox
}

// NewSandboxProbe makes a probe that runs DetectSandbox when started.
func NewSandboxProbe() *SandboxProbe {
	return &SandboxProbe{done: make(chan struct{}), detect: func() Sandbox { return DetectSandbox(context.Background()) }}
}

// KnownSandbox is a probe whose answer is already known (a caller that detected it, tests).
func KnownSandbox(s Sandbox) *SandboxProbe {
	p := &SandboxProbe{done: make(chan struct{}), v: s}
	p.once.Do(func() { close(p.done) })
	return p
}

// Start begins detection in the background, once; later calls do nothing.
func (p *SandboxProbe) Start() {
	p.once.Do(func() {
		go func() {
			p.v = p.detect()
			close(p.done)
		}()
	})
}

// Get is what detection found, starting it if nobody has and waiting for it.
func (p *SandboxProbe) Get() Sandbox {
	p.Start()
	<-p.done
	return p.v
}
