package telemetry_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/telemetry"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The OpenTelemetry Collector's own OTLP receiver, in process, listening on loopback over HTTP
// and gRPC, keeping what it receives in memory.
type collector struct {
	traces  *consumertest.TracesSink
	metrics *consumertest.MetricsSink
	http    string // base URLs, as OTEL_EXPORTER_OTLP_ENDPOINT
	grpc    string
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	ctx := context.Background()
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	grpcAddr, httpAddr := freeAddr(t), freeAddr(t)
	cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = grpcAddr
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = httpAddr
	c := &collector{traces: new(consumertest.TracesSink), metrics: new(consumertest.MetricsSink),
		http: "http://" + httpAddr, grpc: "http://" + grpcAddr}
	set := receivertest.NewNopSettings(f.Type())
	tr, err := f.CreateTraces(ctx, set, cfg, c.traces)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := f.CreateMetrics(ctx, set, cfg, c.metrics)
	if err != nil {
		t.Fatal(err)
	}
	// Start binds both listeners before it returns: the collector is ready.
	if err := tr.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	if err := mr.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Shutdown(ctx); _ = mr.Shutdown(ctx) })
	return c
}

// span is one received span, flattened.
type span struct {
	name, id, parent, trace string
	attrs                   map[string]any
	start, end              time.Time
}

func (c *collector) spans() []span {
	var out []span
	for _, td := range c.traces.AllTraces() {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					out = append(out, flatten(s))
				}
			}
		}
	}
	return out
}

func flatten(s ptrace.Span) span {
	attrs := map[string]any{}
	s.Attributes().Range(func(k string, v pcommon.Value) bool {
		attrs[k] = v.AsRaw()
		return true
	})
	return span{name: s.Name(), id: s.SpanID().String(), parent: s.ParentSpanID().String(), trace: s.TraceID().String(),
		attrs: attrs, start: s.StartTimestamp().AsTime(), end: s.EndTimestamp().AsTime()}
}

// tokenSum adds the token.usage histogram's sums of one token type.
func (c *collector) tokenSum(typ string) float64 {
	var sum float64
	for _, md := range c.metrics.AllMetrics() {
		for _, rm := range md.ResourceMetrics().All() {
			for _, sm := range rm.ScopeMetrics().All() {
				for _, m := range sm.Metrics().All() {
					if m.Name() != "gen_ai.client.token.usage" {
						continue
					}
					for _, dp := range m.Histogram().DataPoints().All() {
						if v, ok := dp.Attributes().Get("gen_ai.token.type"); ok && v.Str() == typ {
							sum += dp.Sum()
						}
					}
				}
			}
		}
	}
	return sum
}

const apiKey = "sk-telemetry-never-sent"

// agent is the whole stack as the CLI builds it, on a real SQLite file, against the scripted
// model server on loopback.
type agent struct {
	t      *testing.T
	srv    *fakeai.Server
	db     *store.DB
	st     *stack.Stack
	ws     string
	dbPath string

	once sync.Once
}

func newAgent(t *testing.T, tel *telemetry.Config) *agent {
	t.Helper()
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), dir+"/loopdesk.db")
	if err != nil {
		t.Fatal(err)
	}
	st, err := stack.New(stack.Config{DB: db, Telemetry: tel,
		Model: provider.New(provider.Config{BaseURL: srv.URL(), APIKey: apiKey, Model: "m", MaxRetries: -1,
			RequestTimeout: 20 * time.Second, IdleTimeout: 20 * time.Second})})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{t: t, srv: srv, db: db, st: st, ws: t.TempDir(), dbPath: dir + "/loopdesk.db"}
	t.Cleanup(a.close)
	return a
}

// close stops the stack (sending what telemetry queued) and closes the database.
func (a *agent) close() {
	a.once.Do(func() {
		a.st.Close()
		a.db.Close()
	})
}

// run runs a prompt in a new session that calls the shell once, then answers; it returns the
// session and how long the run took.
func (a *agent) run(prompt string) (string, time.Duration) {
	a.t.Helper()
	a.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "sh1", Name: "run_shell_command", Arguments: `{"command":"exit 3"}`}),
		fakeai.Text("done"))
	return a.runScripted(prompt)
}

// runScripted runs prompt in a new session with whatever the model server was scripted to say.
func (a *agent) runScripted(prompt string) (string, time.Duration) {
	a.t.Helper()
	ctx := context.Background()
	s, err := a.db.CreateSession(ctx, store.NewSession{Title: "t", Workspace: a.ws, Model: "m"})
	if err != nil {
		a.t.Fatal(err)
	}
	began := time.Now()
	id, err := a.st.Runner.Start(ctx, loop.RunSpec{SessionID: s.ID, Prompt: prompt, Model: "m", Mode: tools.ModeAuto})
	if err != nil {
		a.t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := a.st.Runner.Wait(wctx, id); err != nil {
		a.t.Fatal(err)
	}
	return s.ID, time.Since(began)
}

func byID(spans []span) map[string]span {
	out := map[string]span{}
	for _, s := range spans {
		out[s.id] = s
	}
	return out
}

func named(spans []span, prefix string) []span {
	var out []span
	for _, s := range spans {
		if strings.HasPrefix(s.name, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// reopen opens the agent's database again, after close (as `loopdesk otel export` does).
func reopen(t *testing.T, a *agent) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), a.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
