package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/loopdesk/loopdesk/backend/store"
)

func otelRun(env map[string]string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Otel(context.Background(), args, func(k string) string { return env[k] }, &out, &errb)
	return code, out.String(), errb.String()
}

// otlpHTTP is an OTLP/HTTP trace endpoint that keeps the span names it was sent.
type otlpHTTP struct {
	mu    sync.Mutex
	names []string
}

func (o *otlpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				o.names = append(o.names, s.Name)
			}
		}
	}
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// recordRuns stores two sessions of one finished run each (a message, a reply with its usage)
// and returns their ids.
func recordRuns(t *testing.T, path string) (string, string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ids []string
	for range 2 {
		s, err := db.CreateSession(ctx, store.NewSession{Title: "t", Workspace: t.TempDir(), Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		run, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Model: "m", Provider: "p"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Append(ctx, s.ID, run.ID, store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "hi"}},
			store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "hello", ToolCalls: []store.ToolCall{},
				Usage: &store.Usage{InputTokens: 10, OutputTokens: 2}}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids[0], ids[1]
}

// `loopdesk otel export` sends the recorded runs to --endpoint (or the standard variable), keeps
// to --session (and its children), and says what it sent.
func TestOtelExportSendsRecordedRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	a, _ := recordRuns(t, path)
	col := &otlpHTTP{}
	srv := httptest.NewServer(col)
	defer srv.Close()

	code, out, errOut := otelRun(nil, "export", "--db", path, "--endpoint", srv.URL)
	if code != ExitOK || !strings.HasPrefix(out, "sent ") || !strings.Contains(out, "in 2 sessions") {
		t.Fatalf("export: exit %d, %q %q", code, out, errOut)
	}
	all := len(col.names)
	if all != 4 || strings.Join(col.names, ",") != "invoke_agent loopdesk,chat m,invoke_agent loopdesk,chat m" {
		t.Fatalf("the collector got %v", col.names)
	}
	if code, out, _ := otelRun(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}, "export", "--db", path, "--since", "1d"); code != ExitOK ||
		!strings.Contains(out, "sent 4 spans of 2 runs") {
		t.Errorf("--since 1d: exit %d %q", code, out)
	}
	if code, out, _ := otelRun(nil, "export", "--db", path, "--endpoint", srv.URL, "--session", a); code != ExitOK || !strings.Contains(out, "sent 2 spans of 1 runs in 1 sessions") {
		t.Errorf("--session: exit %d %q", code, out)
	}
}

func TestOtelExportRefusesBadInputClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	recordRuns(t, path)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"export", "--db", path}, ExitUsage, "no collector"},
		{[]string{"export", "--db", path, "--endpoint", "localhost:4318"}, ExitUsage, "want a base URL"},
		{[]string{"export", "--db", path, "--endpoint", "http://127.0.0.1:1", "--protocol", "thrift"}, ExitUsage, "use http/protobuf or grpc"},
		{[]string{"export", "--db", path, "--endpoint", "http://127.0.0.1:1", "--since", "yesterday"}, ExitUsage, "--since"},
		{[]string{"import"}, ExitUsage, "unknown command"},
		{[]string{"export", "--db", path, "--endpoint", "http://127.0.0.1:1", "--session", "nope"}, ExitOther, "nope"},
		{[]string{"export", "--db", path, "--endpoint", "http://127.0.0.1:1"}, ExitOther, "send to http://127.0.0.1:1"},
	} {
		code, _, errOut := otelRun(nil, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.says) {
			t.Errorf("%v: exit %d %q; want %d saying %q", tc.args, code, errOut, tc.code, tc.says)
		}
	}
}
