package desktop_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/store"
)

func TestFitKeepsTheWindowOnTheScreenAndAboveTheMinimum(t *testing.T) {
	screen := desktop.Size{Width: 1920, Height: 1080}
	placed := func(w, h, x, y int) desktop.Geometry {
		return desktop.Geometry{Width: w, Height: h, X: x, Y: y, HasPosition: true}
	}
	cases := []struct {
		name   string
		in     desktop.Geometry
		screen desktop.Size
		want   desktop.Geometry
	}{
		{"nothing saved: the default size, placed by the window manager", desktop.Geometry{}, screen,
			desktop.Geometry{Width: 1280, Height: 800}},
		{"fits: unchanged", placed(1000, 700, 100, 50), screen, placed(1000, 700, 100, 50)},
		{"below the minimum", placed(300, 200, 10, 10), screen, placed(760, 480, 10, 10)},
		{"larger than a smaller screen now", placed(2500, 1400, 0, 0), desktop.Size{Width: 1366, Height: 768},
			placed(1366, 768, 0, 0)},
		{"hanging over the right and bottom edges: moved in", placed(1000, 700, 1500, 900), screen,
			placed(1000, 700, 920, 380)},
		{"on a monitor that is gone: unplaced", placed(1000, 700, 2500, 100), screen, desktop.Geometry{Width: 1000, Height: 700}},
		{"negative position: unplaced", placed(1000, 700, -40, 10), screen, desktop.Geometry{Width: 1000, Height: 700}},
		{"screen unknown (before GTK): only the minimum", placed(300, 2000, 5000, 5000), desktop.Size{},
			placed(760, 2000, 5000, 5000)},
		{"a screen below the minimum keeps the minimum", placed(1000, 700, 0, 0), desktop.Size{Width: 640, Height: 400},
			placed(760, 480, 0, 0)},
		{"maximised is kept", desktop.Geometry{Width: 900, Height: 600, Maximised: true}, screen,
			desktop.Geometry{Width: 900, Height: 600, Maximised: true}},
	}
	for _, c := range cases {
		if got := desktop.Fit(c.in, c.screen, desktop.MinSize); got != c.want {
			t.Errorf("%s: Fit(%+v, %+v) = %+v; want %+v", c.name, c.in, c.screen, got, c.want)
		}
	}
}

// fakeWindow is the window as Wails' runtime reports it.
type fakeWindow struct {
	w, h, x, y int
	max        bool
}

func (f *fakeWindow) Size() (int, int)     { return f.w, f.h }
func (f *fakeWindow) Position() (int, int) { return f.x, f.y }
func (f *fakeWindow) Maximised() bool      { return f.max }

func TestWindowStateSurvivesARestart(t *testing.T) {
	app := newTestApp(t, "")
	ctx := context.Background()
	win := &fakeWindow{w: 1100, h: 700, x: 40, y: 30}
	app.svc.SetWindow(win)
	if err := app.svc.Window.SaveGeometry(); err != nil {
		t.Fatal(err)
	}
	// Maximised: the size to return to is the one before.
	win.max, win.w, win.h = true, 1920, 1080
	if err := app.svc.Window.SaveGeometry(); err != nil {
		t.Fatal(err)
	}
	if err := app.svc.Window.SaveUIState(desktop.UIState{PanelWidth: 10000, LastSession: " s-42 ", Zoom: 1.25}); err != nil {
		t.Fatal(err)
	}

	// The next start reads the same database.
	db, err := store.Open(ctx, app.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := desktop.LoadGeometry(ctx, db)
	want := desktop.Geometry{Width: 1100, Height: 700, X: 40, Y: 30, HasPosition: true, Maximised: true}
	if err != nil || g != want {
		t.Fatalf("geometry after a restart = %+v, %v; want %+v", g, err, want)
	}
	ui, err := app.svc.Window.UIState()
	if err != nil || ui != (desktop.UIState{PanelWidth: desktop.MaxPanelWidth, LastSession: "s-42", Zoom: 1.25}) {
		t.Fatalf("page state = %+v, %v; want the panel width clamped, the session and the zoom", ui, err)
	}
	if err := app.svc.Window.SaveUIState(desktop.UIState{Zoom: 9}); err != nil {
		t.Fatal(err)
	}
	if ui, _ := app.svc.Window.UIState(); ui.Zoom != desktop.MaxZoom || ui.PanelWidth != 0 {
		t.Fatalf("zoom 9 saved as %+v; want %v and the default panel width", ui, desktop.MaxZoom)
	}

	// Nothing saved: the default size.
	empty, err := store.Open(ctx, filepath.Join(t.TempDir(), "new.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if g, err := desktop.LoadGeometry(ctx, empty); err != nil || g != (desktop.Geometry{Width: 1280, Height: 800}) {
		t.Fatalf("first start geometry = %+v, %v", g, err)
	}
}
