package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// queueLen bounds the runs waiting to be sent: past it a finished run is dropped and counted,
// so a collector that never answers holds no more memory than this.
const queueLen = 64

// closeWait bounds how long Close waits for what is queued before dropping it.
const closeWait = 3 * time.Second

// Stats are what the live exporter did since it started.
type Stats struct {
	Exported int64  `json:"exported"` // spans the collector accepted
	Dropped  int64  `json:"dropped"`  // spans dropped: queue full, export failed or timed out, closed first
	LastErr  string `json:"last_error,omitempty"`
}

// Live sends each run when it finishes (run_finished on the bus), built from the journal, on a
// goroutine of its own: the bus callback only queues, so no run ever waits for the collector.
type Live struct {
	builder Builder
	spans   sdktrace.SpanExporter
	meters  *sdkmetric.MeterProvider
	tokens  metric.Int64Histogram
	seconds metric.Float64Histogram
	timeout time.Duration
	log     *slog.Logger

	journal  Ended
	started  time.Time
	mu       sync.Mutex
	queued   map[string]bool // runs queued so far, by id
	queue    chan runRef
	stop     context.CancelFunc
	unsub    <-chan struct{} // closed once the bus callback can no longer run
	done     chan struct{}
	once     sync.Once
	exported atomic.Int64
	dropped  atomic.Int64
	lastErr  atomic.Value // string
}

type runRef struct{ session, run string }

var quiet sync.Once

// Ended is the journal live export reads: Journal plus the runs that ended lately, which Close
// sweeps for one whose run_finished the bus had not delivered yet.
type Ended interface {
	Journal
	EndedRuns(ctx context.Context, since time.Time) ([]store.EndedRun, error)
}

// Start subscribes to b and sends every run that finishes from now on to cfg's collector.
func Start(cfg Config, j Ended, b *bus.Bus, log *slog.Logger) (*Live, error) {
	if log == nil {
		log = slog.Default()
	}
	quiet.Do(func() {
		// The SDK reports a failed metrics flush through its global handler, which prints on
		// stderr: the terminal of loopdesk run. The log keeps it instead (span drops are counted).
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Debug("telemetry", "err", err) }))
	})
	ctx := context.Background()
	spans, err := cfg.TraceExporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	mexp, err := cfg.MetricExporter(ctx)
	if err != nil {
		_ = spans.Shutdown(ctx)
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	res := cfg.Resource()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithTimeout(cfg.timeout()), sdkmetric.WithInterval(30*time.Second))))
	meter := mp.Meter(scope.Name)
	l := &Live{builder: Builder{Journal: j, Resource: res, Contents: cfg.Contents}, spans: spans, meters: mp,
		timeout: cfg.timeout(), log: log, journal: j, started: time.Now(), queued: map[string]bool{}, queue: make(chan runRef, queueLen), done: make(chan struct{})}
	l.tokens, _ = meter.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used"))
	l.seconds, _ = meter.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration"))
	subCtx, cancel := context.WithCancel(ctx)
	l.stop = cancel
	l.unsub = b.Subscribe(subCtx, "", func(ev bus.Event) {
		if ev.Type != core.EventRunFinished {
			return
		}
		l.enqueue(runRef{ev.SessionID, ev.RunID})
	})
	go l.work()
	return l, nil
}

// enqueue queues a run once; a full queue drops it (counted as one span, its root).
func (l *Live) enqueue(ref runRef) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.queued[ref.run] {
		return
	}
	l.queued[ref.run] = true
	select {
	case l.queue <- ref:
	default:
		l.dropped.Add(1)
	}
}

// sweep queues the runs this process ended whose run_finished the bus had not delivered when
// Close unsubscribed (a subscriber's undelivered events are dropped with it).
func (l *Live) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	ended, err := l.journal.EndedRuns(ctx, l.started)
	if err != nil {
		l.log.Warn("telemetry: the last runs may be missing", "err", err)
		return
	}
	for i := len(ended) - 1; i >= 0; i-- { // oldest first
		if e := ended[i]; e.PID == os.Getpid() {
			l.enqueue(runRef{e.SessionID, e.RunID})
		}
	}
}

// Stats says what was sent and dropped so far.
func (l *Live) Stats() Stats {
	s := Stats{Exported: l.exported.Load(), Dropped: l.dropped.Load()}
	if e, ok := l.lastErr.Load().(string); ok {
		s.LastErr = e
	}
	return s
}

func (l *Live) work() {
	defer close(l.done)
	for ref := range l.queue {
		l.send(ref)
	}
}

func (l *Live) send(ref runRef) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	spans, err := l.builder.Session(ctx, ref.session, func(r store.Run) bool { return r.ID == ref.run })
	if err != nil {
		l.fail(1, fmt.Errorf("read run %s: %w", ref.run, err))
		return
	}
	l.record(ctx, spans)
	if err := l.spans.ExportSpans(ctx, spans); err != nil {
		l.fail(len(spans), err)
		return
	}
	l.exported.Add(int64(len(spans)))
}

func (l *Live) fail(n int, err error) {
	l.dropped.Add(int64(n))
	prev, _ := l.lastErr.Load().(string)
	l.lastErr.Store(err.Error())
	if prev == "" { // once, not once per run: a collector that is down would fill the log
		l.log.Warn("telemetry: spans dropped (further failures are counted, not logged)", "spans", n, "err", err)
	}
}

// record adds each chat span's tokens and time to the GenAI metrics.
func (l *Live) record(ctx context.Context, spans []sdktrace.ReadOnlySpan) {
	for _, s := range spans {
		var op, provider, model string
		var in, out int64
		for _, kv := range s.Attributes() {
			switch kv.Key {
			case "gen_ai.operation.name":
				op = kv.Value.AsString()
			case "gen_ai.provider.name":
				provider = kv.Value.AsString()
			case "gen_ai.request.model":
				model = kv.Value.AsString()
			case "gen_ai.usage.input_tokens":
				in = kv.Value.AsInt64()
			case "gen_ai.usage.output_tokens":
				out = kv.Value.AsInt64()
			}
		}
		if op != "chat" {
			continue
		}
		base := []attribute.KeyValue{attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", provider),
			attribute.String("gen_ai.request.model", model)}
		l.seconds.Record(ctx, s.EndTime().Sub(s.StartTime()).Seconds(), metric.WithAttributes(base...))
		l.tokens.Record(ctx, in, metric.WithAttributes(append(base, attribute.String("gen_ai.token.type", "input"))...))
		l.tokens.Record(ctx, out, metric.WithAttributes(append(base, attribute.String("gen_ai.token.type", "output"))...))
	}
}

// Close stops listening, sends what is queued (for at most a few seconds: past that it is
// dropped and counted) and flushes the metrics.
func (l *Live) Close() error {
	var err error
	l.once.Do(func() {
		l.stop()
		<-l.unsub // no send on the closed queue
		l.sweep()
		close(l.queue)
		// One deadline for the queue and the flushes: a collector that never answers delays the
		// end of the process by closeWait at most.
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		defer cancel()
		select {
		case <-l.done:
		case <-ctx.Done():
			l.dropped.Add(int64(len(l.queue)))
		}
		err = errors.Join(l.meters.Shutdown(ctx), l.spans.Shutdown(ctx))
	})
	return err
}
