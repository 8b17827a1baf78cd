package desktop

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/telemetry"
)

// TelemetryView is Settings → Telemetry: what is saved (the headers never shown, only whether
// there are some), whether the standard variables turn export on, and what was sent.
type TelemetryView struct {
	On         bool   `json:"on"`
	Endpoint   string `json:"endpoint"`
	Protocol   string `json:"protocol"`
	HeadersSet bool   `json:"headers_set"`
	Contents   bool   `json:"contents"`
	// FromEnv: OTEL_EXPORTER_OTLP_ENDPOINT turns export on while Settings leave it off;
	// Disabled: OTEL_SDK_DISABLED=true turns it off whatever Settings say.
	FromEnv  bool `json:"from_env"`
	Disabled bool `json:"disabled"`
	// Active: runs are being sent now; Exported and Dropped count spans since it started.
	Active    bool   `json:"active"`
	Exported  int64  `json:"exported"`
	Dropped   int64  `json:"dropped"`
	LastError string `json:"last_error"`
}

// TelemetryInput is what Save in Settings → Telemetry sends. Headers "" keeps the saved ones
// unless ClearHeaders.
type TelemetryInput struct {
	On           bool   `json:"on"`
	Endpoint     string `json:"endpoint"`
	Protocol     string `json:"protocol"`
	Headers      string `json:"headers"`
	ClearHeaders bool   `json:"clear_headers"`
	Contents     bool   `json:"contents"`
}

// startTelemetry is the window's live export as it starts; a saved configuration that cannot
// be used leaves it off (Settings → Telemetry shows it off, the log says why).
func startTelemetry(keys config.Keys, getenv func(string) string) *telemetry.Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	saved, err := keys.Telemetry()
	if err == nil {
		var cfg *telemetry.Config
		if cfg, err = windowTelemetry(saved, getenv); err == nil {
			return cfg
		}
	}
	slog.Error("telemetry off", "err", err)
	return nil
}

// windowTelemetry is the window's live export: Settings → Telemetry when on, else the standard
// variables; nil when off (OTEL_SDK_DISABLED=true turns both off).
func windowTelemetry(saved config.Telemetry, getenv func(string) string) (*telemetry.Config, error) {
	env, on, err := telemetry.FromEnv(getenv)
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	if saved.On {
		headers, err := telemetry.ParseHeaders(saved.Headers)
		if err != nil {
			return nil, fmt.Errorf("headers: %w", err)
		}
		cfg := telemetry.Config{Endpoint: strings.TrimSpace(saved.Endpoint), Protocol: saved.Protocol, Headers: headers,
			ServiceName: env.ServiceName, Contents: saved.Contents}
		return &cfg, cfg.Check()
	}
	if err != nil || !on {
		return nil, err
	}
	return &env, nil
}

func (s *Settings) getenv() func(string) string {
	if g := s.c.settings.Getenv; g != nil {
		return g
	}
	return os.Getenv
}

// Telemetry is Settings → Telemetry as saved and as running.
func (s *Settings) Telemetry() (TelemetryView, error) {
	saved, err := s.c.settings.Keys.Telemetry()
	if err != nil {
		return TelemetryView{}, err
	}
	getenv := s.getenv()
	_, fromEnv, _ := telemetry.FromEnv(getenv)
	v := TelemetryView{On: saved.On, Endpoint: saved.Endpoint, Protocol: saved.Protocol, HeadersSet: saved.Headers != "",
		Contents: saved.Contents, FromEnv: fromEnv && !saved.On,
		Disabled: strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true")}
	if st, ok := s.c.st.TelemetryStats(); ok {
		v.Active, v.Exported, v.Dropped, v.LastError = true, st.Exported, st.Dropped, st.LastErr
	}
	return v, nil
}

// SetTelemetry saves Settings → Telemetry (beside the API key, never in the database) and
// applies it to the runs that finish from now on. A turned-on configuration that cannot be used
// (no endpoint, an unknown protocol, malformed headers) is refused and nothing changes.
func (s *Settings) SetTelemetry(in TelemetryInput) (TelemetryView, error) {
	keys := s.c.settings.Keys
	saved, err := keys.Telemetry()
	if err != nil {
		return TelemetryView{}, err
	}
	next := config.Telemetry{On: in.On, Endpoint: strings.TrimSpace(in.Endpoint), Protocol: in.Protocol, Headers: saved.Headers,
		Contents: in.Contents}
	if in.Headers != "" || in.ClearHeaders {
		next.Headers = strings.TrimSpace(in.Headers)
	}
	cfg, err := windowTelemetry(next, s.getenv())
	if err != nil {
		return TelemetryView{}, fmt.Errorf("telemetry: %w", err)
	}
	if err := keys.SetTelemetry(next); err != nil {
		return TelemetryView{}, err
	}
	if err := s.c.st.SetTelemetry(cfg); err != nil {
		return TelemetryView{}, fmt.Errorf("telemetry: %w", err)
	}
	return s.Telemetry()
}
