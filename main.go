// Command loopdesk-window is the window of Loopdesk, a desktop app in which a person chats
// with an LLM agent working inside a folder of theirs. People run `loopdesk` (cmd/loopdesk),
// which links no GTK or WebKit: it runs the headless commands itself (docs/cli.md) and execs
// this program, in the same process, when the window is wanted. This program also runs every
// command (cli.Main) and is the dev build (build/bin/loopdesk-dev) whole.
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

func main() {
	launch, getenv := cli.Start(os.Args[1:])
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
	var damaged *store.DamagedError
	if errors.As(o.err, &damaged) && gtkErr == nil {
		return wails.Run(damagedOptions(path, damaged)) // storage_window.go: the file is never written
	}
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
