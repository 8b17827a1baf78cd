package telemetry

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTLP protocols.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// DefaultTimeout bounds one export: a collector that accepts and never answers costs at most
// this, on the exporter's own goroutine.
const DefaultTimeout = 5 * time.Second

// Config is where and how to send. The standard variables fill it (FromEnv); the window's
// Settings → Telemetry fills the same fields.
type Config struct {
	// Endpoint is the collector's base URL (as OTEL_EXPORTER_OTLP_ENDPOINT): the HTTP exporter
	// posts to /v1/traces and /v1/metrics under it, gRPC dials it.
	Endpoint string
	Protocol string            // ProtocolHTTP (the default) or ProtocolGRPC
	Headers  map[string]string // sent with every export (an API key of the collector's)
	// ServiceName is the resource's service.name ("loopdesk" when empty).
	ServiceName string
	// Contents puts messages, tool arguments and results on the spans.
	Contents bool
	Timeout  time.Duration // per export; 0 is DefaultTimeout
	Version  string        // service.version
}

// FromEnv reads the standard variables. on is false without OTEL_EXPORTER_OTLP_ENDPOINT or
// with OTEL_SDK_DISABLED=true; a malformed value is an error.
func FromEnv(getenv func(string) string) (cfg Config, on bool, err error) {
	cfg = Config{Endpoint: strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")),
		Protocol:    strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")),
		ServiceName: strings.TrimSpace(getenv("OTEL_SERVICE_NAME")),
		Contents:    strings.EqualFold(strings.TrimSpace(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")}
	if cfg.Headers, err = ParseHeaders(getenv("OTEL_EXPORTER_OTLP_HEADERS")); err != nil {
		return cfg, false, fmt.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %w", err)
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") || cfg.Endpoint == "" {
		return cfg, false, nil
	}
	return cfg, true, cfg.Check()
}

// Check reports a configuration that cannot be used, in words.
func (c Config) Check() error {
	switch c.Protocol {
	case "", ProtocolHTTP, ProtocolGRPC:
	default:
		return fmt.Errorf("protocol %q: use %s or %s", c.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint %q: want a base URL such as http://localhost:4318", c.Endpoint)
	}
	return nil
}

// ParseHeaders reads the OTEL_EXPORTER_OTLP_HEADERS form: key=value pairs separated by commas,
// each part URL-encoded.
func ParseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%q is not key=value", kv)
		}
		key, err1 := url.QueryUnescape(strings.TrimSpace(k))
		val, err2 := url.QueryUnescape(strings.TrimSpace(v))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%q is not URL-encoded", kv)
		}
		out[key] = val
	}
	return out, nil
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Resource is the resource every span and metric carries.
func (c Config) Resource() *resource.Resource {
	name := c.ServiceName
	if name == "" {
		name = "loopdesk"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if c.Version != "" {
		attrs = append(attrs, attribute.String("service.version", c.Version))
	}
	return resource.NewSchemaless(attrs...)
}

// base is the endpoint without a trailing slash.
func (c Config) base() string { return strings.TrimRight(c.Endpoint, "/") }

// TraceExporter makes the span exporter of c. It does not connect: a collector that is down
// shows as a failed export, never here. Retries are off: a failed batch is dropped and counted.
func (c Config) TraceExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolGRPC {
		return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(c.base()), otlptracegrpc.WithHeaders(c.Headers),
			otlptracegrpc.WithTimeout(c.timeout()), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	}
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.base()+"/v1/traces"), otlptracehttp.WithHeaders(c.Headers),
		otlptracehttp.WithTimeout(c.timeout()), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
}

// MetricExporter makes the metric exporter of c (see TraceExporter).
func (c Config) MetricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolGRPC {
		return otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(c.base()), otlpmetricgrpc.WithHeaders(c.Headers),
			otlpmetricgrpc.WithTimeout(c.timeout()), otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}))
	}
	return otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(c.base()+"/v1/metrics"), otlpmetrichttp.WithHeaders(c.Headers),
		otlpmetrichttp.WithTimeout(c.timeout()), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}))
}
