// Command loopdesk-sandbox-exec is the Landlock layer of Loopdesk's sandbox. bwrap
// runs it inside the sandbox it built; it restricts itself with Landlock and then
// replaces itself with the command, which inherits the restriction:
//
//	loopdesk-sandbox-exec [--rw DIR]... [--no-net] -- COMMAND [ARG]...
//
// Reading is allowed everywhere, writing only below each --rw folder; --no-net
// forbids TCP. If Landlock cannot be applied it exits 126 without running the
// command. Build it static (CGO_ENABLED=0) and install it next to the loopdesk
// binary or on PATH; sandbox.Detect finds it there.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/loopdesk/loopdesk/backend/sandbox"
)

func main() {
	var rw []string
	noNet := false
	args := os.Args[1:]
	for len(args) > 0 && args[0] != "--" {
		switch {
		case args[0] == "--rw" && len(args) > 1:
			rw = append(rw, args[1])
			args = args[2:]
		case args[0] == "--no-net":
			noNet = true
			args = args[1:]
		default:
			fail(fmt.Errorf("unknown argument %q", args[0]))
		}
	}
	if len(args) < 2 {
		fail(fmt.Errorf("usage: loopdesk-sandbox-exec [--rw DIR]... [--no-net] -- COMMAND [ARG]..."))
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		fail(err)
	}
	if err := sandbox.RestrictThread(rw, noNet); err != nil {
		fail(err)
	}
	fail(syscall.Exec(path, args[1:], os.Environ())) // returns only on failure
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "loopdesk-sandbox-exec: %v\n", err)
	os.Exit(126)
}
