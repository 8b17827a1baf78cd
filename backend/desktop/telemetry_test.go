package desktop_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
)

// Settings → Telemetry is off by default, keeps its endpoint and headers beside the API key
// (mode 0600, never in the database, the headers never shown back), refuses what cannot be
// used, and turns live export on and off at once.
func TestTelemetrySettingsKeptLikeTheKey(t *testing.T) {
	app := newTestApp(t, "")
	v, err := app.Settings.Telemetry()
	if err != nil || v.On || v.Active {
		t.Fatalf("a new window's telemetry: %+v %v; want off", v, err)
	}
	if _, err := app.Settings.SetTelemetry(desktop.TelemetryInput{On: true, Endpoint: "localhost:4318"}); err == nil {
		t.Error("an endpoint that is not a URL was saved")
	}
	const secret = "x-honeycomb-team=hc-secret-123"
	v, err = app.Settings.SetTelemetry(desktop.TelemetryInput{On: true, Endpoint: "http://127.0.0.1:4318", Protocol: "grpc",
		Headers: secret, Contents: true})
	if err != nil || !v.On || !v.Active || !v.HeadersSet || !v.Contents || v.Protocol != "grpc" {
		t.Fatalf("after Save: %+v %v", v, err)
	}
	path := filepath.Join(filepath.Dir(app.dbPath), "config", "telemetry.json")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("telemetry.json: %v %v; want mode 0600", fi, err)
	}
	db, _ := os.ReadFile(app.dbPath)
	wal, _ := os.ReadFile(app.dbPath + "-wal")
	if bytes.Contains(append(db, wal...), []byte("hc-secret-123")) {
		t.Error("the collector's headers reached the database")
	}
	// Saving again without headers keeps them; turning it off stops sending.
	if v, err = app.Settings.SetTelemetry(desktop.TelemetryInput{On: false, Endpoint: "http://127.0.0.1:4318"}); err != nil ||
		v.Active || !v.HeadersSet {
		t.Errorf("turned off: %+v %v", v, err)
	}
}
