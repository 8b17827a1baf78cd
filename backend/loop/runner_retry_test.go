package loop_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
)

// A provider's retries are events the window shows ("Retrying (1 of 2) after HTTP 500"),
// not a silent wait under "Waiting for the model…".
func TestProviderRetriesArePublished(t *testing.T) {
	var srvURL string
	h := newHarnessWith(t, nil)
	srvURL = h.srv.URL()
	h.cfg.Model = provider.New(provider.Config{BaseURL: srvURL, APIKey: "test-key", Model: "fake-model",
		MaxRetries: 2, BackoffBase: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		RequestTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second})
	runner := loop.New(h.cfg)
	t.Cleanup(runner.Close)
	rec := record(t, runner.Bus(), "")
	h.srv.Enqueue(fakeai.HTTPError(500, "boom"), fakeai.HTTPError(502, "bad gateway"), fakeai.Text("at last"))

	id, err := runner.Start(t.Context(), loop.RunSpec{SessionID: h.session(), Model: "fake-model", Prompt: "hi", Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "run_finished", ofType(core.EventRunFinished, id))
	var got []core.ModelRetryingPayload
	for _, e := range rec.all() {
		if e.Type == core.EventModelRetrying && e.RunID == id {
			got = append(got, e.Payload.(core.ModelRetryingPayload))
		}
	}
	if len(got) != 2 || got[0].Attempt != 1 || got[0].Of != 2 || got[0].Cause != "HTTP 500" || got[1].Attempt != 2 || got[1].Cause != "HTTP 502" {
		t.Fatalf("retry events %+v; want attempts 1 and 2 of 2 after HTTP 500 and 502", got)
	}
	b, _ := json.Marshal(bus.Event{Type: core.EventModelRetrying, SessionID: "s", RunID: id, Payload: got[0]})
	var flat map[string]any
	if err := json.Unmarshal(b, &flat); err != nil || flat["type"] != "model_retrying" || flat["cause"] != "HTTP 500" {
		t.Fatalf("the page's event: %s (%v)", b, err)
	}
}

// A model call that failed for good leaves a usage row that says what happened in words,
// not "model call ended as provider_error".
func TestFailedModelCallRowSaysWhatHappened(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.HTTPError(500, "boom"))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "hi"}); res.Status != core.StopProviderError {
		t.Fatalf("run ended %s", res.Status)
	}
	rows := h.rows(sid)
	var p struct{ Reason string }
	_ = json.Unmarshal(rows[len(rows)-1].Payload, &p)
	if p.Reason != "The model call failed: the provider answered with an error or the connection broke, and no reply arrived" {
		t.Fatalf("the failed call's row says %q", p.Reason)
	}
}
