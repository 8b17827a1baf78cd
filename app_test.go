package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/store"
)

func TestCSPHeaderIsStrict(t *testing.T) {
	for _, want := range []string{"script-src 'self'", "object-src 'none'", "frame-src 'none'", "default-src 'self'"} {
		if !strings.Contains(contentSecurityPolicy, want) {
			t.Errorf("CSP lacks %q", want)
		}
	}
	if strings.Contains(contentSecurityPolicy, "unsafe-eval") || strings.Contains(strings.SplitN(contentSecurityPolicy, "style-src", 2)[0], "unsafe-inline") {
		t.Error("CSP allows inline or eval'd scripts")
	}
}

func TestErrorsReachThePageAsCodeAndMessage(t *testing.T) {
	// Wails rejects with new Error(formatError(err)): it must be text the page can parse.
	s, ok := formatError(fmt.Errorf("open session x: %w", store.ErrNotFound)).(string)
	if !ok {
		t.Fatalf("formatError returned %T; want a string", formatError(store.ErrNotFound))
	}
	var e desktop.AppError
	if err := json.Unmarshal([]byte(s), &e); err != nil || e.Code != "not_found" || !strings.Contains(e.Message, "open session x") {
		t.Fatalf("formatError = %s (%v)", s, err)
	}
}

// The window's icon is decoded by GTK before the window shows, on every start: it stays small
// (main.go says why), and it is the app's icon, not a blank square.
func TestWindowIconIsSmallAndDrawn(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(icon))
	if err != nil {
		t.Fatalf("the window icon is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 128 || b.Dy() != 128 {
		t.Fatalf("window icon %dx%d, want 128x128", b.Dx(), b.Dy())
	}
	if img.ColorModel() != color.NRGBAModel && img.ColorModel() != color.RGBAModel {
		t.Fatalf("window icon colour model %T, want 8-bit RGBA (a 16-bit PNG costs GTK twice the decoding)", img.ColorModel())
	}
	colours := map[color.Color]bool{}
	for y := 0; y < 128; y += 4 {
		for x := 0; x < 128; x += 4 {
			colours[img.At(x, y)] = true
		}
	}
	if len(colours) < 8 {
		t.Fatalf("window icon has %d colours: not the app's icon", len(colours))
	}
}
