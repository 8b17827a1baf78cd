package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The window's wiring: the four bound services of backend/desktop, the native dialogs, the
// error formatter and the asset headers. Everything the services do lives in backend/desktop.

// appOptions builds the window on db (at dbPath: one window per database). instance hands
// the window a folder given on the command line, of this launch or a later one.
func appOptions(db *store.DB, dbPath string, keys config.Keys, instance *desktop.Instance) (*options.App, error) {
	dialogs := &wailsDialogs{}
	mcpPath, err := mcp.DefaultPath()
	if err != nil {
		mcpPath = "" // no usable config folder: no MCP servers, said in Settings
	}
	svc, err := desktop.New(db, keys, dialogs, mcpPath)
	if err != nil {
		return nil, err
	}
	svc.SetInstance(instance)
	return &options.App{
		Title:            "Loopdesk",
		Width:            1280,
		Height:           800,
		MinWidth:         760,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 250, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: securityHeaders},
		OnStartup: func(ctx context.Context) {
			dialogs.ctx = ctx
			emit := func(name string, data any) { runtime.EventsEmit(ctx, name, data) }
			svc.Startup(ctx, emit)
			// UnMinimise is gtk_window_present: it raises and focuses the window.
			instance.Started(emit, func() { runtime.WindowShow(ctx); runtime.WindowUnminimise(ctx) })
		},
		// A second `loopdesk [FOLDER]` focuses this window and hands it FOLDER.
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: desktop.InstanceID(dbPath),
			OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
				instance.SecondLaunch(cli.ParseWindowArgs(d.Args, d.WorkingDirectory))
			},
		},
		OnShutdown:     func(context.Context) { svc.Shutdown() },
		Bind:           svc.Bound(),
		ErrorFormatter: formatError,
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "loopdesk",
			WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand,
		},
	}, nil
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

func (d *wailsDialogs) OpenFile(title string) (string, error) {
	return runtime.OpenFileDialog(d.ctx, runtime.OpenDialogOptions{Title: title,
		Filters: []runtime.FileFilter{{DisplayName: "JSON Lines (*.jsonl)", Pattern: "*.jsonl"}}})
}

// formatError maps Go errors to {code, message} once, at the boundary (desktop.Classify), as
// JSON text: Wails' bridge rejects with new Error(<what this returns>), so an object would
// arrive as "[object Object]". frontend/src/api/types.ts parses it.
func formatError(err error) any {
	b, _ := json.Marshal(desktop.Classify(err)) // two strings always marshal
	return string(b)
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
