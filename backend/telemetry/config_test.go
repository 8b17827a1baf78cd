package telemetry_test

import (
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/telemetry"
)

// The standard variables turn export on and configure it; OTEL_SDK_DISABLED=true wins; a value
// that cannot be used is an error naming it.
func TestStandardVariables(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cfg, on, err := telemetry.FromEnv(env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "https://api.honeycomb.io", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_EXPORTER_OTLP_HEADERS": "x-honeycomb-team=abc%3D,x-dataset = loop desk", "OTEL_SERVICE_NAME": "agent",
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}))
	if err != nil || !on || cfg.Endpoint != "https://api.honeycomb.io" || cfg.Protocol != "grpc" || cfg.ServiceName != "agent" ||
		!cfg.Contents || cfg.Headers["x-honeycomb-team"] != "abc=" || cfg.Headers["x-dataset"] != "loop desk" {
		t.Errorf("FromEnv: %+v on=%v err=%v", cfg, on, err)
	}
	if _, on, _ := telemetry.FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "TRUE"})); on {
		t.Error("OTEL_SDK_DISABLED=true left export on")
	}
	if _, on, _ := telemetry.FromEnv(env(nil)); on {
		t.Error("no endpoint, yet export is on")
	}
	for name, kv := range map[string]map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
		"protocol":                   {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
		"want a base URL":            {"OTEL_EXPORTER_OTLP_ENDPOINT": "x:4318"},
	} {
		if _, _, err := telemetry.FromEnv(env(kv)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: err %v; want one naming %q", kv, err, name)
		}
	}
}
