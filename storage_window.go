package main

import (
	"context"
	"os"
	"strings"
	"syscall"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The database file in the window (desktop.Storage): in the usual window beside the other
// services, and alone in the window that opens on a database store.Open refused — the
// damaged-database screen, which reads the file (Check, Recover) and never writes it.

// storageConfig wires Storage: the database at path, open (db) or refused (damaged).
func storageConfig(path string, db *store.DB, damaged *store.DamagedError, dialogs *wailsDialogs) desktop.StorageConfig {
	return desktop.StorageConfig{Path: path, DB: db, Damaged: damaged, ChooseDatabase: dialogs.OpenDatabase, Reopen: reopen}
}

// OpenDatabase picks a database file for "Open another".
func (d *wailsDialogs) OpenDatabase() (string, error) {
	return runtime.OpenFileDialog(d.ctx, runtime.OpenDialogOptions{Title: "Open a Loopdesk database",
		Filters: []runtime.FileFilter{{DisplayName: "SQLite databases (*.db)", Pattern: "*.db"}}})
}

// reopen replaces this process with Loopdesk on the database at path: the same program and
// arguments, LOOPDESK_DB=path, and the keys start-up took out of the environment given back
// to it (it takes them out again at once). It returns only when the exec failed.
func reopen(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	env := []string{"LOOPDESK_DB=" + path}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOOPDESK_DB=") {
			env = append(env, kv)
		}
	}
	for k, v := range cli.Secrets {
		env = append(env, k+"="+v)
	}
	return syscall.Exec(exe, os.Args, env)
}

// damagedOptions is the window on a database store.Open refused: Storage alone, bound.
func damagedOptions(path string, damaged *store.DamagedError) *options.App {
	dialogs := &wailsDialogs{}
	storage := desktop.NewStorage(storageConfig(path, nil, damaged, dialogs))
	return &options.App{
		Title:            "Loopdesk — the database cannot be opened",
		Width:            900,
		Height:           640,
		MinWidth:         desktop.MinSize.Width,
		MinHeight:        desktop.MinSize.Height,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 250, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: securityHeaders},
		OnStartup:        func(ctx context.Context) { dialogs.ctx = ctx },
		Bind:             []any{storage},
		ErrorFormatter:   formatError,
		Linux:            &linux.Options{Icon: icon, ProgramName: "loopdesk", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	}
}
