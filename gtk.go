package main

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <signal.h>

// Adds SA_ONSTACK to every handler GTK's start-up installed, as Wails does after its own
// gtk_init: Go runs signal handlers on its alternate stack and refuses handlers without it.
static void loopdesk_signals_onstack(void) {
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;
		if (sigaction(s, NULL, &sa) != 0) continue;
		if (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_ONSTACK)) continue;
		sa.sa_flags |= SA_ONSTACK;
		sigaction(s, &sa, NULL);
	}
}

static int loopdesk_gtk_init(void) {
	int ok = gtk_init_check(NULL, NULL);
	loopdesk_signals_onstack();
	return ok;
}
*/
import "C"

import (
	"errors"
	"os"
	"runtime"
)

// startGTK initialises GTK on the calling goroutine's thread and keeps the goroutine there,
// so runWindow can do it while the database opens instead of after (docs/benchmarks.md,
// "GTK starts while the database opens"). wails.Run, called later on the same goroutine,
// finds GTK initialised: its own gtk_init_check then returns at once, and every GTK call
// stays on this thread.
//
// The backend is chosen as Wails chooses it, before GTK reads it: X11 unless the session
// says Wayland (or something else); GDK_BACKEND set by the person wins.
func startGTK() error {
	runtime.LockOSThread()
	if os.Getenv("GDK_BACKEND") == "" {
		switch os.Getenv("XDG_SESSION_TYPE") {
		case "", "unspecified", "x11":
			_ = os.Setenv("GDK_BACKEND", "x11")
		}
	}
	if C.loopdesk_gtk_init() != 1 {
		return errors.New("cannot open the window: GTK could not open the display " +
			os.Getenv("DISPLAY") + os.Getenv("WAYLAND_DISPLAY"))
	}
	return nil
}
