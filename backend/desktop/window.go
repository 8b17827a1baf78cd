package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Window is the bound service for the window itself: whether it has the focus (for
// notifications), and what it remembers between starts — its size, position and maximised
// state (read by main before the window opens), the side panel's width, the last open
// session and the zoom (read by the page).
type Window struct{ c *core }

// Geometry is where the window was: its normal (not maximised) size and position, and
// whether it was maximised. HasPosition is false until a position was saved.
type Geometry struct {
	Width       int  `json:"width"`
	Height      int  `json:"height"`
	X           int  `json:"x"`
	Y           int  `json:"y"`
	HasPosition bool `json:"has_position"`
	Maximised   bool `json:"maximised"`
}

// UIState is what the page restores: the side panel's width in CSS pixels (0: the default),
// the session that was open ("" for none) and the page zoom (1 = 100%).
type UIState struct {
	PanelWidth  int     `json:"panel_width"`
	LastSession string  `json:"last_session"`
	Zoom        float64 `json:"zoom"`
}

// Size is a width and height in pixels.
type Size struct{ Width, Height int }

// The window's default and minimum size (app.go), and the bounds of what the page may save.
var (
	DefaultSize = Size{1280, 800}
	MinSize     = Size{760, 480}
)

const (
	MinZoom, MaxZoom             = 0.5, 2.0
	MinPanelWidth, MaxPanelWidth = 280, 900
)

const (
	keyGeometry = "ui.window"
	keyUIState  = "ui.state"
)

// WindowControl reads the window's geometry (Wails' runtime in the app; a fake in tests).
type WindowControl interface {
	Size() (w, h int)
	Position() (x, y int)
	Maximised() bool
}

// SetWindow gives the services the window, once it exists (OnStartup).
func (s *Services) SetWindow(w WindowControl) {
	s.c.mu.Lock()
	s.c.window = w
	s.c.mu.Unlock()
}

// SetFocused is the page telling Go the window gained (true) or lost (false) the focus:
// notifications are shown only while it is not focused.
func (h *Window) SetFocused(focused bool) { h.c.notices.setFocused(focused) }

// UIState returns what the page saved, within bounds.
func (h *Window) UIState() (UIState, error) {
	var s UIState
	if err := readJSON(h.c.context(), h.c.db, keyUIState, &s); err != nil {
		return UIState{Zoom: 1}, err
	}
	return s.clamped(), nil
}

// SaveUIState stores the panel width, the open session and the zoom (the page debounces).
func (h *Window) SaveUIState(s UIState) error {
	b, _ := json.Marshal(s.clamped()) // numbers and a string always marshal
	return h.c.db.SetSetting(h.c.context(), keyUIState, string(b))
}

// SaveGeometry reads the window's size, position and maximised state and stores them; the
// page calls it (debounced) when the window is resized, and app.go before it closes. While
// maximised the normal size and position saved before are kept, so un-maximising on the
// next start returns to them.
func (h *Window) SaveGeometry() error {
	c := h.c
	c.mu.Lock()
	w := c.window
	c.mu.Unlock()
	if w == nil {
		return nil // no window (tests, the dev server before start-up)
	}
	g, _ := LoadGeometry(c.context(), c.db) // a bad saved value is replaced
	g = Measure(g, w)
	b, _ := json.Marshal(g)
	return c.db.SetSetting(c.context(), keyGeometry, string(b))
}

// Measure is g updated from the window as it is now.
func Measure(g Geometry, w WindowControl) Geometry {
	g.Maximised = w.Maximised()
	if g.Maximised {
		return g
	}
	g.Width, g.Height = w.Size()
	g.X, g.Y = w.Position()
	g.HasPosition = true
	return g
}

// LoadGeometry reads the saved geometry; with none saved it is the default size, unplaced.
func LoadGeometry(ctx context.Context, db *store.DB) (Geometry, error) {
	g := Geometry{Width: DefaultSize.Width, Height: DefaultSize.Height}
	if err := readJSON(ctx, db, keyGeometry, &g); err != nil {
		return Geometry{Width: DefaultSize.Width, Height: DefaultSize.Height}, err
	}
	return g, nil
}

// Fit makes g fit a screen (a zero screen: unknown, only the minimum applies): at least the
// minimum size, at most the screen, and placed so the whole window is on it. A position the
// screen cannot hold (a monitor unplugged since) is dropped, leaving the placement to the
// window manager.
func Fit(g Geometry, screen, least Size) Geometry {
	if g.Width <= 0 || g.Height <= 0 {
		g.Width, g.Height = DefaultSize.Width, DefaultSize.Height
	}
	g.Width, g.Height = max(g.Width, least.Width), max(g.Height, least.Height)
	if screen.Width <= 0 || screen.Height <= 0 {
		return g
	}
	g.Width, g.Height = min(g.Width, max(screen.Width, least.Width)), min(g.Height, max(screen.Height, least.Height))
	if g.HasPosition {
		if g.X < 0 || g.Y < 0 || g.X >= screen.Width || g.Y >= screen.Height {
			g.X, g.Y, g.HasPosition = 0, 0, false
		} else {
			g.X = max(0, min(g.X, screen.Width-g.Width))
			g.Y = max(0, min(g.Y, screen.Height-g.Height))
		}
	}
	return g
}

func (s UIState) clamped() UIState {
	if s.Zoom == 0 || math.IsNaN(s.Zoom) {
		s.Zoom = 1
	}
	s.Zoom = math.Round(math.Max(MinZoom, math.Min(MaxZoom, s.Zoom))*100) / 100
	if s.PanelWidth != 0 {
		s.PanelWidth = max(MinPanelWidth, min(MaxPanelWidth, s.PanelWidth))
	}
	s.LastSession = strings.TrimSpace(s.LastSession)
	return s
}

// readJSON reads a JSON setting into dst; an absent setting leaves dst as it is.
func readJSON(ctx context.Context, db *store.DB, key string, dst any) error {
	v, ok, err := db.GetSetting(ctx, key)
	if err != nil || !ok || v == "" {
		return err
	}
	if err := json.Unmarshal([]byte(v), dst); err != nil {
		return fmt.Errorf("read setting %s: %w", key, err)
	}
	return nil
}
