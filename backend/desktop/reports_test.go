package desktop_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals/approvalstest"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A run's provider sends rate-limit headers: the window has them for that session, with
// their time, and run_started says what Loopdesk's own part of the request weighs.
func TestProviderLimitsAndHarnessTokensReachTheWindow(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey("sk-test-secret"))
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	if l, err := app.svc.Reports.ProviderLimits(s.ID); err != nil || l != nil {
		t.Fatalf("before any request: %v, %v; want none", l, err)
	}
	srv.Enqueue(fakeai.Text("ok").WithHeaders(map[string]string{"x-ratelimit-remaining-tokens": "39000",
		"x-ratelimit-reset-tokens": "1.5s"}))
	before := time.Now()
	runID, err := app.SendMessage(s.ID, "hi")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	l, err := app.svc.Reports.ProviderLimits(s.ID)
	if err != nil || l == nil {
		t.Fatalf("after the run: %v, %v", l, err)
	}
	if l.Headers["x-ratelimit-remaining-tokens"] != "39000" || l.Headers["x-ratelimit-reset-tokens"] != "1.5s" || l.At.Before(before) {
		t.Errorf("limits = %+v", *l)
	}
	started := app.rec.waitFor(t, "run_started", func(ev map[string]any) bool { return ev["type"] == "run_started" && ev["run_id"] == runID })
	h, _ := started["harness_tokens"].(map[string]any)
	if total, _ := h["total"].(float64); total <= 0 || h["estimated"] != true {
		t.Errorf("run_started harness_tokens = %v", started["harness_tokens"])
	}
}

// The window's report is the CLI's, and accepting a suggestion saves its rule.
func TestApprovalReportAndAcceptingASuggestion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "loopdesk.db")
	a, _, err := approvalstest.Record(context.Background(), path, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	app := openTestApp(t, path, filepath.Join(dir, "config"))
	r, err := app.svc.Reports.ApprovalReport("", "7d")
	if err != nil {
		t.Fatal(err)
	}
	if r.Asked != approvalstest.ExpectedAsked || len(r.Suggestions) != 3 {
		t.Fatalf("asked %d with %d suggestions", r.Asked, len(r.Suggestions))
	}
	if _, err := app.svc.Reports.ApprovalReport(a, "soon"); err == nil {
		t.Error("an age of \"soon\" was taken")
	}
	rule, err := app.svc.Reports.AcceptSuggestion(r.Suggestions[0])
	if err != nil {
		t.Fatal(err)
	}
	if rule.Pattern != "go test ./store -run *" || rule.ScopeID != a || rule.Effect != "allow" {
		t.Errorf("saved %+v", rule)
	}
}

// Adding an MCP server shows what its schemas cost in Settings before any run uses it, and a
// run's run_started counts the same under harness_tokens.mcp.
func TestMCPServerSchemaCostShowsBeforeAnyRunAndMatchesTheRun(t *testing.T) {
	bin, err := filepath.Abs("../mcp/testdata/npm/node_modules/.bin/mcp-server-everything")
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		t.Skipf("server-everything is not installed (npm ci in backend/mcp/testdata/npm): %v", err)
	}
	srv := startFake(t, fakeai.WithAPIKey("sk-test-secret"))
	app := newTestApp(t, srv.URL())
	if _, err := app.SaveMCPConfig(mcp.Config{Servers: map[string]mcp.ServerConfig{"everything": {Command: bin}}}); err != nil {
		t.Fatal(err)
	}
	var cost int64
	for deadline := time.Now().Add(20 * time.Second); cost == 0; {
		if time.Now().After(deadline) {
			t.Fatal("Settings never showed the server's schema cost")
		}
		cost = app.MCPServers().SchemaTokens["everything"]
		if cost == 0 {
			waitMCP(app)
		}
	}
	s, err := app.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "hi")
	if err != nil {
		t.Fatal(err)
	}
	started := app.rec.waitFor(t, "run_started", func(ev map[string]any) bool { return ev["type"] == "run_started" && ev["run_id"] == runID })
	app.rec.runFinished(t, runID)
	h, _ := started["harness_tokens"].(map[string]any)
	byServer, _ := h["mcp"].(map[string]any)
	if got, _ := byServer["everything"].(float64); int64(got) != cost {
		t.Errorf("run_started harness_tokens.mcp = %v; Settings said %d", h["mcp"], cost)
	}
	t.Logf("server-everything's tool schemas: %d tokens in every request", cost)
}

// waitMCP waits for the next MCP status the window is sent (a server's tools arriving), or a
// moment when none comes.
func waitMCP(app *testApp) {
	select {
	case <-app.rec.signal:
	case <-time.After(200 * time.Millisecond):
	}
}

// The Budget tab's harness line survives reopening: a window opened later reads the last
// run's figure. A new session's first request carries no history, so the provider's usage
// of it counts Loopdesk's share (less the person's message) and the figure is not
// estimated; a later run's request carries history and its figure stays the estimate.
func TestHarnessTokensSurviveReopeningAndAreMeasuredWithoutHistory(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey("sk-test-secret"))
	dir := t.TempDir()
	path, conf := filepath.Join(dir, "loopdesk.db"), filepath.Join(dir, "config")
	app := openTestApp(t, path, conf)
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-test-secret"}); err != nil {
		t.Fatal(err)
	}
	s, err := app.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := app.svc.Reports.HarnessTokens(s.ID); err != nil || h != nil {
		t.Fatalf("before any run: %v, %v; want none", h, err)
	}
	const prompt = "hi"
	srv.Enqueue(fakeai.Text("ok").WithUsage(2345, 5, 0))
	runID, err := app.SendMessage(s.ID, prompt)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)

	later := openTestApp(t, path, conf)
	h, err := later.svc.Reports.HarnessTokens(s.ID)
	if err != nil || h == nil {
		t.Fatalf("after reopening: %v, %v", h, err)
	}
	if want := 2345 - loopcore.EstimateMessage(prompt); h.Total != want || h.Estimated {
		t.Errorf("first run: total %d estimated %v; want %d measured", h.Total, h.Estimated, want)
	}
	if h.System <= 0 || h.Tools <= 0 {
		t.Errorf("first run's parts = %+v", *h)
	}

	srv.Enqueue(fakeai.Text("again").WithUsage(9999, 5, 0))
	runID, err = app.SendMessage(s.ID, "once more")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	started := app.rec.waitFor(t, "run_started", func(ev map[string]any) bool { return ev["type"] == "run_started" && ev["run_id"] == runID })
	estimate, _ := started["harness_tokens"].(map[string]any)["total"].(float64)
	h, err = later.svc.Reports.HarnessTokens(s.ID)
	if err != nil || h == nil {
		t.Fatalf("after the second run: %v, %v", h, err)
	}
	if !h.Estimated || h.Total != int64(estimate) {
		t.Errorf("second run: total %d estimated %v; want the estimate %v", h.Total, h.Estimated, estimate)
	}
}

// Two calls the model asks for together wait from the same moment: both approval rows keep
// it, and the second answer's time runs from it, not from the first answer.
func TestCallsAskedTogetherKeepWhenTheyStartedWaiting(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey("sk-test-secret"))
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"a\n"}`},
		fakeai.Call{ID: "c2", Name: "write_file", Arguments: `{"path":"b.txt","content":"b\n"}`}), fakeai.Text("done"))
	runID, err := app.SendMessage(s.ID, "write both")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "approval_requested", func(ev map[string]any) bool { return ev["type"] == "approval_requested" && ev["run_id"] == runID })
	if err := app.Decide(s.ID, "c1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "c1 decided", func(ev map[string]any) bool { return ev["type"] == "approval_decided" && ev["call_id"] == "c1" })
	if err := app.Decide(s.ID, "c2", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	rows, err := app.db.Chunks(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var asked []time.Time
	for _, c := range rows {
		if c.Kind == store.KindApproval {
			p := payload[store.ApprovalPayload](t, c)
			if p.RequestedAt.IsZero() || p.RequestedAt.After(c.CreatedAt) {
				t.Errorf("approval of %s: requested_at %v, written at %v", p.CallID, p.RequestedAt, c.CreatedAt)
			}
			asked = append(asked, p.RequestedAt)
		}
	}
	if len(asked) != 2 || !asked[0].Equal(asked[1]) {
		t.Errorf("requested_at of the two approvals = %v; want one moment", asked)
	}
	if r, err := app.svc.Reports.ApprovalReport(s.ID, ""); err != nil || r.Asked != 2 {
		t.Errorf("report: %+v, %v", r, err)
	}
}
