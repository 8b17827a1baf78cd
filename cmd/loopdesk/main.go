// Command loopdesk is what people run: the headless commands (docs/cli.md), and the window,
// which it opens by becoming the window program (cli.ExecWindow). It links no GTK or WebKit
// (only SQLite needs cgo), so `loopdesk --version` or `loopdesk sessions list` does not wait
// for the dynamic loader to map the window's ~170 libraries first.
package main

import (
	"fmt"
	"os"

	"github.com/loopdesk/loopdesk/backend/cli"
)

func main() {
	// The environment as this process got it, the keys included: the window program hides
	// them itself as its first step, exactly as when one binary did both. Nothing is added
	// to it, so a key that came from the configuration never enters an environment.
	env := os.Environ()
	if launch, _ := cli.Start(os.Args[1:]); !launch.Window {
		os.Exit(launch.Code)
	}
	err := cli.ExecWindow(os.Args, env)
	fmt.Fprintf(os.Stderr, "loopdesk: %v\n", err)
	os.Exit(cli.ExitOther)
}
