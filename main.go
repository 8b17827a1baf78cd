// Command loopdesk is a desktop app in which a person chats with an LLM agent
// working inside a folder of theirs. Without arguments it opens the window;
// `loopdesk run` and `loopdesk sessions` are the headless CLI (docs/cli.md).
package main

import (
	"context"
	"embed"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/wailsapp/wails/v2"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/store"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	// Before anything else runs or starts: the key leaves the environment (Go's copy and the
	// block /proc/<pid>/environ shows) and the process becomes non-dumpable, so no child,
	// sandboxed or not, can read it (docs/sandbox.md). Only Go memory keeps it.
	secrets, err := sandbox.HideSecrets(keyEnv)
	if err != nil {
		log.Printf("loopdesk: %v", err)
	}
	cli.APIKey = secrets[keyEnv]
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "run":
			// cli.Run owns Ctrl-C: the first cancels the run cleanly, the second exits.
			os.Exit(cli.Run(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		case "sessions":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := cli.Sessions(ctx, os.Args[2:], os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		case "help", "-h", "-help", "--help":
			fmt.Fprint(os.Stdout, usage)
			return
		}
	}
	if err := runWindow(secrets[keyEnv]); err != nil {
		log.Printf("loopdesk: %v", err)
		os.Exit(1)
	}
}

const usage = `loopdesk                         open the window
loopdesk run [flags] PROMPT      run the agent headless in a workspace
loopdesk sessions list|show|fork|search|export|import|delete ...

The database is $LOOPDESK_DB, or $XDG_DATA_HOME/loopdesk/loopdesk.db.
See docs/cli.md for every flag, the JSON output and the exit codes.
`

// keyEnv is the environment variable the API key may come in.
const keyEnv = "OPENAI_API_KEY"

func runWindow(key string) error {
	ctx := context.Background()
	path, err := store.DefaultPath()
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("open the session database: %w", err)
	}
	defer db.Close()
	cfgDir, err := config.ConfigDir()
	if err != nil {
		return err
	}

	// The key from the environment, as HideSecrets kept it; everything else from the environment.
	getenv := func(name string) string {
		if name == keyEnv {
			return key
		}
		return os.Getenv(name)
	}
	opts, err := appOptions(db, config.Keys{Dir: cfgDir, Getenv: getenv})
	if err != nil {
		return err
	}
	return wails.Run(opts)
}
