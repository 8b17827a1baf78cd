package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// Benchmarks report x_vs_bare: Loopdesk's time over a bare baseline measured
// in the same run, pair by pair with alternating order, as the median of the
// per-pair ratios (docs/benchmarks.md).

const callBatch = 20 // calls per timed batch: one call is too short to time alone

// benchServer is a stdio server both sides of a benchmark start the same way.
type benchServer struct {
	name string
	cfg  ServerConfig
}

func benchServers(b *testing.B) []benchServer {
	servers := []benchServer{{"go-helper", helperConfig("server")}}
	bin, _ := filepath.Abs(filepath.Join("testdata", "npm", "node_modules", ".bin", "mcp-server-everything"))
	if _, err := os.Stat(bin); err == nil {
		servers = append(servers, benchServer{"everything", ServerConfig{Command: bin}})
	} else {
		b.Logf("server-everything not installed (npm ci in testdata/npm): only the Go server is measured")
	}
	return servers
}

// BenchmarkCall: one echo call through the registry (schema validation, the
// adapter, result conversion and cap) against the bare SDK client calling the
// same server over the same transport (stdio).
func BenchmarkCall(b *testing.B) {
	for _, srv := range benchServers(b) {
		b.Run(srv.name, func(b *testing.B) { benchCall(b, srv.cfg) })
	}
}

func benchCall(b *testing.B, cfg ServerConfig) {
	ctx := context.Background()
	m := Start(Config{Servers: map[string]ServerConfig{"s": cfg}}, Options{})
	defer m.Close()
	if err := m.WaitSettled(ctx); err != nil {
		b.Fatal(err)
	}
	reg, err := tools.NewRegistry(m.Tools()...)
	if err != nil {
		b.Fatal(err)
	}
	call := tools.Call{ID: "c", Name: "mcp__s__echo", Arguments: `{"message":"hello from the benchmark"}`}
	bare := bareSession(b, cfg)
	defer bare.Close()
	params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello from the benchmark"}}

	pipeline := func() func() {
		for range callBatch {
			if r := reg.Run(ctx, nil, call, nil); r.IsError {
				b.Fatalf("pipeline call: %s", r.Content)
			}
		}
		return nil
	}
	sdkOnly := func() func() {
		for range callBatch {
			if _, err := bare.CallTool(ctx, params); err != nil {
				b.Fatalf("bare call: %v", err)
			}
		}
		return nil
	}
	pipeline() // warm both connections
	sdkOnly()
	ratios, ours, base := pairs(b, pipeline, sdkOnly)
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N*callBatch), "us/call")
	b.ReportMetric(float64(base.Microseconds())/float64(b.N*callBatch), "bare_us/call")
	b.ReportMetric(median(ratios), "x_vs_bare")
}

// bareSession is the baseline client: the SDK's own CommandTransport, the
// same command and environment.
func bareSession(b *testing.B, cfg ServerConfig) *sdk.ClientSession {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = serverEnv(os.Environ(), cfg.Env)
	client := sdk.NewClient(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return sess
}

// BenchmarkStart: three servers started in parallel until all are settled,
// against the slowest of them started alone.
func BenchmarkStart(b *testing.B) {
	slowest := helperConfig("server", "LOOPDESK_MCP_DELAY=300ms")
	b.Run("go-helper-100-200-300ms", func(b *testing.B) {
		benchStart(b, map[string]ServerConfig{
			"a": helperConfig("server", "LOOPDESK_MCP_DELAY=100ms"),
			"b": helperConfig("server", "LOOPDESK_MCP_DELAY=200ms"),
			"c": slowest,
		}, slowest)
	})
	for _, srv := range benchServers(b) {
		if srv.name == "everything" {
			b.Run("everything-x3", func(b *testing.B) {
				benchStart(b, map[string]ServerConfig{"a": srv.cfg, "b": srv.cfg, "c": srv.cfg}, srv.cfg)
			})
		}
	}
}

func benchStart(b *testing.B, three map[string]ServerConfig, slowest ServerConfig) {
	startAll := func(servers map[string]ServerConfig) func() func() {
		return func() func() {
			m := Start(Config{Servers: servers}, Options{})
			if err := m.WaitSettled(context.Background()); err != nil {
				b.Fatal(err)
			}
			for _, st := range m.Statuses() {
				if st.State != StateReady {
					b.Fatalf("%s: %s %s", st.Name, st.State, st.Reason)
				}
			}
			return func() { _ = m.Close() } // closing is not part of starting
		}
	}
	ratios, ours, base := pairs(b, startAll(three), startAll(map[string]ServerConfig{"slowest": slowest}))
	b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "ms/start3")
	b.ReportMetric(float64(base.Milliseconds())/float64(b.N), "ms/start1")
	b.ReportMetric(median(ratios), "x_vs_bare")
}

// pairs runs ours and base b.N times each, alternating which goes first, and
// returns the per-pair ratios and the total time of each side. A side may
// return a clean-up, run untimed.
func pairs(b *testing.B, ours, base func() func()) ([]float64, time.Duration, time.Duration) {
	timed := func(f func() func()) time.Duration {
		t0 := time.Now()
		cleanup := f()
		d := time.Since(t0)
		if cleanup != nil {
			cleanup()
		}
		return d
	}
	var ratios []float64
	var totalOurs, totalBase time.Duration
	b.ResetTimer()
	for i := range b.N {
		var o, s time.Duration
		if i%2 == 0 {
			o, s = timed(ours), timed(base)
		} else {
			s, o = timed(base), timed(ours)
		}
		totalOurs += o
		totalBase += s
		ratios = append(ratios, float64(o)/float64(s))
	}
	return ratios, totalOurs, totalBase
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
