package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Telemetry is Settings → Telemetry: where the window sends its runs (backend/telemetry). It
// is kept like the API key, in a file of mode 0600 beside it and never in the database: the
// headers often hold the collector's own key.
type Telemetry struct {
	On       bool   `json:"on"`
	Endpoint string `json:"endpoint"`
	Protocol string `json:"protocol"`
	// Headers are in the OTEL_EXPORTER_OTLP_HEADERS form: key=value,key2=value2.
	Headers  string `json:"headers"`
	Contents bool   `json:"contents"`
}

// TelemetryPath is where Telemetry is kept.
func (k Keys) TelemetryPath() string { return filepath.Join(k.Dir, "telemetry.json") }

// Telemetry reads the saved telemetry settings; none saved is the zero value (off).
func (k Keys) Telemetry() (Telemetry, error) {
	var t Telemetry
	b, err := os.ReadFile(k.TelemetryPath())
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil {
		return Telemetry{}, fmt.Errorf("read the telemetry settings %s: %w", k.TelemetryPath(), err)
	}
	return t, nil
}

// SetTelemetry saves t like SetKey saves the key: mode 0600, replaced atomically.
func (k Keys) SetTelemetry(t Telemetry) error {
	b, err := json.Marshal(t) // one line: strings and booleans always marshal
	if err != nil {
		return err
	}
	if err := writeKeyFile(k.TelemetryPath(), string(b)); err != nil {
		return fmt.Errorf("save the telemetry settings: %w", err)
	}
	return nil
}
