package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/notify"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The window's wiring: the five bound services of backend/desktop, the native dialogs, the
// error formatter and the asset headers. Everything the services do lives in backend/desktop.

// appOptions builds the window on db (at dbPath: one window per database). instance hands
// the window a folder given on the command line, of this launch or a later one; sb detects
// the sandbox (runWindow starts it once the page has loaded).
func appOptions(db *store.DB, dbPath string, keys config.Keys, instance *desktop.Instance, sb *stack.SandboxProbe) (*options.App, error) {
	dialogs := &wailsDialogs{}
	mcpPath, err := mcp.DefaultPath()
	if err != nil {
		mcpPath = "" // no usable config folder: no MCP servers, said in Settings
	}
	svc, err := desktop.NewWith(db, keys, dialogs, mcpPath, sb)
	if err != nil {
		return nil, err
	}
	svc.SetInstance(instance)
	storage := desktop.NewStorage(storageConfig(dbPath, db, nil, dialogs)) // storage_window.go
	geom, err := desktop.LoadGeometry(context.Background(), db)
	if err != nil {
		slog.Warn("read the saved window geometry", "err", err) // the default size then
	}
	geom = desktop.Fit(geom, desktop.Size{}, desktop.MinSize) // the screen is known once GTK is up
	var notifier *notify.Notifier
	startState := options.Normal
	if geom.Maximised {
		startState = options.Maximised
	}
	opts := &options.App{
		Title:            "Loopdesk",
		Width:            geom.Width,
		Height:           geom.Height,
		MinWidth:         desktop.MinSize.Width,
		MinHeight:        desktop.MinSize.Height,
		WindowStartState: startState,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 250, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: securityHeaders},
		OnStartup: func(ctx context.Context) {
			dialogs.ctx = ctx
			emit := func(name string, data any) {
				if batch, ok := data.(desktop.EventBatch); ok { // one script for the whole batch
					runtime.EventsEmit(ctx, name, batch...)
					return
				}
				runtime.EventsEmit(ctx, name, data)
			}
			svc.Startup(ctx, emit)
			desktop.StartBackups(ctx, storage)
			// A window closed with its runs kept is hidden: a second launch or a notification's
			// click shows it again (lifecycle.go).
			svc.StartLifecycle(wailsShell{ctx})
			show := svc.ShowWindow
			instance.Started(emit, show)
			placeWindow(ctx, geom)
			svc.SetWindow(wailsWindow{ctx})
			// No notification server (or no session bus) leaves the window without
			// notifications, never without a window.
			if n, err := notify.Connect(svc.NotificationEvent); err != nil {
				slog.Warn("desktop notifications unavailable", "err", err)
			} else {
				notifier = n
				svc.StartNotifications(n, show)
			}
		},
		// Closing with runs going asks the page first; quitting stops them (lifecycle.go).
		OnBeforeClose: func(context.Context) bool { return svc.BeforeClose() },
		// A second `loopdesk [FOLDER]` focuses this window and hands it FOLDER.
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: desktop.InstanceID(dbPath),
			OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
				instance.SecondLaunch(cli.ParseWindowArgs(d.Args, d.WorkingDirectory))
			},
		},
		OnShutdown: func(context.Context) {
			svc.Shutdown()
			if notifier != nil {
				_ = notifier.Close()
			}
		},
		Bind:           append(svc.Bound(), storage),
		ErrorFormatter: formatError,
		Linux: &linux.Options{
			Icon:        icon,
			ProgramName: "loopdesk",
			// Never, Wails' own default, chosen by measurement (scripts/bench-memory.sh frames,
			// docs/benchmarks.md "GPU policy"): under Xvfb OnDemand kept about 170 MB more in
			// the WebKit processes (721 against 550 MB RSS) and, while a reply streamed, painted
			// 60-64 frames of 240 against 201-225 with Never. Measure again before changing it.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	}
	if benchHook != nil {
		benchHook(opts)
	}
	return opts, nil
}

// benchHook is set only in builds with the bench tag (bench_hook.go): the window bench's
// driver of the page. Product builds leave it nil.
var benchHook func(*options.App)

// placeWindow puts the window where it was, fitted to the screen it opens on (a smaller
// monitor, or one unplugged since, moves it back into view). Positions are relative to that
// monitor, as Wails reports and sets them.
func placeWindow(ctx context.Context, saved desktop.Geometry) {
	screen := desktop.Size{}
	if screens, err := runtime.ScreenGetAll(ctx); err == nil {
		for _, s := range screens {
			if s.IsCurrent {
				screen = desktop.Size{Width: s.Size.Width, Height: s.Size.Height}
			}
		}
	}
	g := desktop.Fit(saved, screen, desktop.MinSize)
	if g.Maximised {
		return // WindowStartState did it; the normal size is kept for un-maximising
	}
	if g.Width != saved.Width || g.Height != saved.Height {
		runtime.WindowSetSize(ctx, g.Width, g.Height)
	}
	if g.HasPosition {
		runtime.WindowSetPosition(ctx, g.X, g.Y)
	}
}

// wailsShell hides, shows and quits the window through Wails' runtime.
type wailsShell struct{ ctx context.Context }

func (w wailsShell) Hide() { runtime.WindowHide(w.ctx) }

// Show un-minimises too: gtk_window_present raises and focuses the window.
func (w wailsShell) Show() { runtime.WindowShow(w.ctx); runtime.WindowUnminimise(w.ctx) }
func (w wailsShell) Quit() { runtime.Quit(w.ctx) }

// wailsWindow is the window's geometry as Wails' runtime reports it.
type wailsWindow struct{ ctx context.Context }

func (w wailsWindow) Size() (int, int)     { return runtime.WindowGetSize(w.ctx) }
func (w wailsWindow) Position() (int, int) { return runtime.WindowGetPosition(w.ctx) }
func (w wailsWindow) Maximised() bool      { return runtime.WindowIsMaximised(w.ctx) }

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
