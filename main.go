// Command loopdesk is a desktop app in which a person chats with an LLM agent
// working inside a folder of theirs. Without arguments it opens the window;
// `loopdesk run`, `loopdesk sessions`, `loopdesk mcp` and `loopdesk settings`
// are the headless CLI (docs/cli.md).
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

//go:embed all:frontend/dist
var assets embed.FS

// icon is the window's own icon (_NET_WM_ICON), 128 px, 8-bit: build/appicon.png made small
// with `convert build/appicon.png -resize 128x128 -depth 8 -strip PNG32:build/windowicon.png`.
// The 512 px, 16-bit source took GTK about 20 ms to decode before the window showed and kept
// a megabyte of pixels; panels and switchers draw 16-64 px (twice that on a HiDPI screen),
// and the installed hicolor icons (scripts/package.sh) serve everything larger.
//
//go:embed build/windowicon.png
var icon []byte

// keyEnv is the environment variable the API key may come in.
const keyEnv = "OPENAI_API_KEY"

func main() {
	// Before anything else runs or starts: the key leaves the environment (Go's copy and the
	// block /proc/<pid>/environ shows) and the process becomes non-dumpable, so no child,
	// sandboxed or not, can read it (docs/sandbox.md). Only Go memory keeps it.
	// The providers' api_key_env variables (providers.json) go with it.
	secrets, err := sandbox.HideSecrets(config.KeyEnvNames()...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopdesk: %v\n", err)
	}
	cli.APIKey, cli.Secrets = secrets[keyEnv], secrets
	// The environment as the configuration sees it: the hidden keys included.
	getenv := func(name string) string {
		if v, ok := secrets[name]; ok {
			return v
		}
		return os.Getenv(name)
	}
	launch := cli.Main(os.Args[1:], getenv, os.Stdin, os.Stdout, os.Stderr)
	if !launch.Window {
		os.Exit(launch.Code)
	}
	// A window already open takes this launch (and its folder) before this
	// process opens the database or starts GTK; Wails' lock below is the
	// fallback for two launches racing.
	var args []string
	if launch.Folder != "" {
		args = []string{launch.Folder}
	}
	dbPath, _ := store.DefaultPath() // an error here is reported by runWindow
	if handed, err := desktop.HandOff(nil, desktop.InstanceID(dbPath), args); err != nil {
		fmt.Fprintf(os.Stderr, "loopdesk: %v; opening a new window\n", err)
	} else if handed {
		os.Exit(0)
	}
	if err := runWindow(launch.Folder, getenv); err != nil {
		fmt.Fprintf(os.Stderr, "loopdesk: %v\n", err)
		os.Exit(1)
	}
}

// runWindow opens the window; folder (absolute, or "") is the folder given on
// the command line. A display GTK cannot open is an error, not a panic.
func runWindow(folder string, getenv func(string) string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && e.Error() == "failed to init GTK" {
				err = errors.New("cannot open the window: GTK could not open the display " +
					os.Getenv("DISPLAY") + os.Getenv("WAYLAND_DISPLAY"))
				return
			}
			panic(r)
		}
	}()
	ctx := context.Background()
	// The database opens (a new file's migrations take 10-20 ms) while GTK starts on this
	// goroutine's thread (about 70 ms), not one after the other before the window. The
	// sandbox probe (bwrap started twice, each in new namespaces) waits until the page has
	// loaded: on this two-core machine it slowed the window's start by about 50 ms after an
	// idle spell (docs/benchmarks.md, "The SDKs' clients out of the binary"); a run or
	// Settings that needs it first starts it then.
	sb := stack.NewSandboxProbe()
	path, err := store.DefaultPath()
	if err != nil {
		return err
	}
	type opened struct {
		db  *store.DB
		err error
	}
	dbc := make(chan opened, 1)
	go func() {
		db, err := store.Open(ctx, path)
		dbc <- opened{db, err}
	}()
	gtkErr := startGTK()
	o := <-dbc
	if o.err != nil {
		return fmt.Errorf("open the session database: %w", o.err)
	}
	db := o.db
	defer db.Close()
	if gtkErr != nil {
		return gtkErr
	}
	cfgDir, err := config.ConfigDir()
	if err != nil {
		return err
	}
	opts, err := appOptions(db, path, config.Keys{Dir: cfgDir, Getenv: getenv}, desktop.NewInstance(folder), sb)
	if err != nil {
		return err
	}
	pageLoaded, next := setPageJSCOptions(), opts.OnDomReady
	opts.OnDomReady = func(ctx context.Context) {
		pageLoaded()
		sb.Start()
		if next != nil {
			next(ctx)
		}
	}
	return wails.Run(opts)
}
