// Command loopdesk is a desktop app in which a person chats with an LLM agent
// working inside a folder of theirs. Without arguments it opens the window;
// `loopdesk run` and `loopdesk sessions` are the headless CLI (docs/cli.md).
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	launch := cli.Main(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
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
	if err := runWindow(launch.Folder); err != nil {
		fmt.Fprintf(os.Stderr, "loopdesk: %v\n", err)
		os.Exit(1)
	}
}

// runWindow opens the window; folder (absolute, or "") is the folder given on
// the command line. A display GTK cannot open is an error, not a panic.
func runWindow(folder string) (err error) {
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
	instance := desktop.NewInstance(folder) // TODO(lead): bind instance.TakeFolder for the page
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

	dialogs := &wailsDialogs{}
	app, err := NewApp(db, config.Keys{Dir: cfgDir}, dialogs)
	if err != nil {
		return err
	}
	return wails.Run(&options.App{
		Title:            "Loopdesk",
		Width:            1280,
		Height:           800,
		MinWidth:         760,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 250, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: securityHeaders},
		OnStartup: func(ctx context.Context) {
			dialogs.ctx = ctx
			app.startup(ctx, func(name string, data any) { runtime.EventsEmit(ctx, name, data) })
			instance.Started(func(name string, data any) { runtime.EventsEmit(ctx, name, data) },
				func() { runtime.WindowShow(ctx); runtime.WindowUnminimise(ctx) }) // UnMinimise is gtk_window_present
		},
		// A second `loopdesk [FOLDER]` focuses this window and hands it FOLDER.
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: desktop.InstanceID(path),
			OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
				instance.SecondLaunch(cli.ParseWindowArgs(d.Args, d.WorkingDirectory))
			},
		},
		OnShutdown:     app.shutdown,
		Bind:           []any{app},
		ErrorFormatter: formatError,
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "loopdesk",
			WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand,
		},
	})
}

// wailsDialogs are the native dialogs, through the Wails runtime.
type wailsDialogs struct{ ctx context.Context }

func (d *wailsDialogs) ChooseFolder(title string) (string, error) {
	return runtime.OpenDirectoryDialog(d.ctx, runtime.OpenDialogOptions{Title: title, CanCreateDirectories: true})
}

func (d *wailsDialogs) SaveFile(title, name string) (string, error) {
	return runtime.SaveFileDialog(d.ctx, runtime.SaveDialogOptions{Title: title, DefaultFilename: name,
		Filters: []runtime.FileFilter{{DisplayName: "JSON Lines (*.jsonl)", Pattern: "*.jsonl"}}})
}

// formatError maps Go errors to {code, message} once, at the boundary, as
// JSON text: Wails' bridge rejects with new Error(<what this returns>), so an
// object would arrive as "[object Object]". frontend/src/api/types.ts parses it.
func formatError(err error) any {
	b, _ := json.Marshal(classifyError(err)) // two strings always marshal
	return string(b)
}

func classifyError(err error) appError {
	code := "error"
	switch {
	case errors.Is(err, store.ErrNotFound):
		code = "not_found"
	case errors.Is(err, errBusy), errors.Is(err, loop.ErrBusy), errors.Is(err, store.ErrSessionBusy):
		code = "busy"
	case errors.Is(err, tools.ErrNotPending):
		code = "not_pending"
	case errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrSeqOutOfRange), errors.Is(err, store.ErrBadQuery):
		code = "invalid"
	case errors.Is(err, desktop.ErrNotConfigured):
		code = "not_configured"
	}
	return appError{Code: code, Message: err.Error()}
}

// appError is what every failed bound method rejects with.
type appError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// securityHeaders adds a strict Content-Security-Policy to every asset: the
// page may load only its own scripts, styles and images, and talk only to
// its own origin (the dev server's websocket included). Nothing the model or
// a tool writes can pull in a script, a frame or a remote image.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; " +
	"base-uri 'none'; frame-src 'none'; form-action 'none'"
