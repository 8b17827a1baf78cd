// Command paintwatch times a window's first paint for scripts/bench-window.sh:
// it polls the X server (every 10 ms, in-process: a screenshot tool's start-up
// would cost more than the thing measured on a loaded machine) until a
// viewable top-level window titled TITLE exists, then until its contents hold
// more than two colours (a blank window is one). It prints
// "window_ms paint_ms", both measured from SINCE (Unix milliseconds).
//
//	paintwatch -title Loopdesk -since 1733000000000 [-timeout 60s]
package main

/*
#cgo pkg-config: x11
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

static int ignore(Display *d, XErrorEvent *e) { return 0; }
static void quiet(void) { XSetErrorHandler(ignore); }

// findWindow returns a viewable window under w whose WM_NAME is title, or 0.
static Window findWindow(Display *d, Window w, const char *title, int depth) {
	char *name = NULL;
	XWindowAttributes a;
	if (XFetchName(d, w, &name) && name) {
		int same = strcmp(name, title) == 0;
		XFree(name);
		if (same && XGetWindowAttributes(d, w, &a) && a.map_state == IsViewable) return w;
	}
	if (depth > 3) return 0;
	Window root, parent, *kids = NULL;
	unsigned int n = 0;
	if (!XQueryTree(d, w, &root, &parent, &kids, &n)) return 0;
	Window found = 0;
	for (unsigned int i = 0; i < n && !found; i++) found = findWindow(d, kids[i], title, depth + 1);
	if (kids) XFree(kids);
	return found;
}

// colours counts distinct colours in w (sampled on a 4-pixel grid), up to max.
static int colours(Display *d, Window w, int max) {
	XWindowAttributes a;
	if (!XGetWindowAttributes(d, w, &a) || a.map_state != IsViewable) return 0;
	XImage *img = XGetImage(d, w, 0, 0, a.width, a.height, AllPlanes, ZPixmap);
	if (!img) return 0;
	unsigned long seen[16];
	int n = 0;
	for (int y = 0; y < a.height && n < max; y += 4)
		for (int x = 0; x < a.width && n < max; x += 4) {
			unsigned long p = XGetPixel(img, x, y);
			int i = 0;
			while (i < n && seen[i] != p) i++;
			if (i == n) seen[n++] = p;
		}
	XDestroyImage(img);
	return n;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"time"
	"unsafe"
)

func main() {
	title := flag.String("title", "", "the window's title")
	since := flag.Int64("since", 0, "start time, Unix milliseconds")
	timeout := flag.Duration("timeout", time.Minute, "give up after")
	flag.Parse()
	if *title == "" || *since == 0 {
		fmt.Fprintln(os.Stderr, "usage: paintwatch -title TITLE -since UNIX_MS")
		os.Exit(2)
	}
	d := C.XOpenDisplay(nil)
	if d == nil {
		fmt.Fprintln(os.Stderr, "paintwatch: cannot open the display")
		os.Exit(1)
	}
	C.quiet()
	ct := C.CString(*title)
	defer C.free(unsafe.Pointer(ct))
	deadline := time.Now().Add(*timeout)
	var w C.Window
	var windowMS int64
	for {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "paintwatch: no painted window %q within %s\n", *title, *timeout)
			os.Exit(1)
		}
		if w == 0 {
			if w = C.findWindow(d, C.XDefaultRootWindow(d), ct, 0); w != 0 {
				windowMS = time.Now().UnixMilli() - *since
			}
		}
		if w != 0 && C.colours(d, w, 3) > 2 {
			fmt.Println(windowMS, time.Now().UnixMilli()-*since)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
