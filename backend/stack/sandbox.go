package stack

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Sandbox is what sandbox.Detect found at start-up: a sandbox, or why none can be made.
// The window and the CLI detect once and build each run's tools.ShellSandbox from it.
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
