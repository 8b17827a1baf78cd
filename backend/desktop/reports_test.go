package desktop_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals/approvalstest"
	"github.com/loopdesk/loopdesk/backend/fakeai"
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
