package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals"
	"github.com/loopdesk/loopdesk/backend/telemetry"
)

const otelUsage = `usage: loopdesk otel export [--db PATH] [--since 7d] [--session ID]... [--endpoint URL]
                             [--protocol grpc|http/protobuf]

export sends past runs from the journal to an OpenTelemetry collector over OTLP,
with their original times: each run an invoke_agent span, each model request a
chat span, each tool call an execute_tool span. Span ids are derived from the
session, run and row, so a run sent twice (or sent live, then here) has the same
ids and the collector de-duplicates it. Runs still going are left out.
See docs/telemetry.md.

flags:
  --db PATH         database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --since AGE       only runs started within AGE: 7d, 12h, 30m (default: every run)
  --session ID      only this session and its task children (repeatable)
  --endpoint URL    the collector's base URL (default $OTEL_EXPORTER_OTLP_ENDPOINT)
  --protocol P      grpc or http/protobuf (default $OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)

$OTEL_EXPORTER_OTLP_HEADERS, $OTEL_SERVICE_NAME and
$OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT apply as they do to live export.
`

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// Otel runs `loopdesk otel export ...`: 0 sent, 1 an error (a collector that refuses, an
// unknown session), 2 a usage error.
func Otel(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if code, asked := helpAsked(args, otelUsage, stdout, stderr); asked {
		return code
	}
	usage := func(err error) int {
		fmt.Fprintf(stderr, "loopdesk otel: %v\n\n%s", err, otelUsage)
		return ExitUsage
	}
	if args[0] != "export" {
		return usage(fmt.Errorf("unknown command %q", args[0]))
	}
	fs := flag.NewFlagSet("loopdesk otel export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var dbPath, since, endpoint, protocol string
	var sessions repeated
	fs.StringVar(&dbPath, "db", "", "")
	fs.StringVar(&since, "since", "", "")
	fs.Var(&sessions, "session", "")
	fs.StringVar(&endpoint, "endpoint", "", "")
	fs.StringVar(&protocol, "protocol", "", "")
	if err := fs.Parse(args[1:]); err != nil {
		return usage(err)
	}
	if fs.NArg() > 0 {
		return usage(fmt.Errorf("unexpected argument %q", strings.Join(fs.Args(), " ")))
	}
	cfg, _, err := telemetry.FromEnv(getenv)
	if err != nil {
		return usage(err)
	}
	if endpoint != "" {
		cfg.Endpoint = endpoint
	}
	if protocol != "" {
		cfg.Protocol = protocol
	}
	if cfg.Endpoint == "" {
		return usage(fmt.Errorf("no collector: pass --endpoint URL or set OTEL_EXPORTER_OTLP_ENDPOINT"))
	}
	if err := cfg.Check(); err != nil {
		return usage(err)
	}
	opt := telemetry.BackfillOptions{Sessions: sessions}
	if since != "" {
		age, err := approvals.ParseAge(since)
		if err != nil {
			return usage(fmt.Errorf("--since: %w", err))
		}
		opt.Since = time.Now().Add(-age)
	}
	cfg.Version = Version
	db, closeDB, err := trustDB(ctx, dbPath, getenv, false)
	if err == nil && db == nil {
		err = fmt.Errorf("no database at the default path (or --db / $LOOPDESK_DB)")
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk otel export: %v\n", err)
		return ExitOther
	}
	defer closeDB()
	sent, err := telemetry.Backfill(ctx, cfg, db, opt)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk otel export: %v\n", err)
		return ExitOther
	}
	fmt.Fprintf(stdout, "sent %d spans of %d runs in %d sessions to %s\n", sent.Spans, sent.Runs, sent.Sessions, cfg.Endpoint)
	return ExitOK
}

// envTelemetry is live export as the standard variables configure it; nil when off. A value
// that cannot be used is said on stderr and leaves it off: telemetry never stops a run.
func envTelemetry(getenv func(string) string, stderr io.Writer) *telemetry.Config {
	cfg, on, err := telemetry.FromEnv(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk: telemetry off: %v\n", err)
		return nil
	}
	if !on {
		return nil
	}
	cfg.Version = Version
	return &cfg
}
