package provider_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/provider"
)

// The rate-limit headers a server sends reach the board, on a normal reply and on a 429
// alike, for both wire formats; other headers do not.
func TestRateLimitHeadersReachTheBoard(t *testing.T) {
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tc := range []struct {
		kind, base string
		reply      fakeai.Reply
		want       map[string]string
	}{
		{provider.KindOpenAI, srv.URL(), fakeai.Text("hi").WithHeaders(map[string]string{
			"x-ratelimit-remaining-requests": "49", "x-ratelimit-limit-tokens": "40000", "x-request-id": "r1"}),
			map[string]string{"x-ratelimit-remaining-requests": "49", "x-ratelimit-limit-tokens": "40000"}},
		{provider.KindAnthropic, strings.TrimSuffix(srv.URL(), "/v1"), fakeai.Text("hi").WithHeaders(map[string]string{
			"anthropic-ratelimit-tokens-remaining": "7000", "anthropic-ratelimit-tokens-reset": "2026-12-07T05:40:00Z"}),
			map[string]string{"anthropic-ratelimit-tokens-remaining": "7000", "anthropic-ratelimit-tokens-reset": "2026-12-07T05:40:00Z"}},
	} {
		var board provider.LimitBoard
		c, err := provider.Open(provider.Config{Name: "p-" + tc.kind, Kind: tc.kind, BaseURL: tc.base, Model: "fake-model",
			MaxRetries: -1, OnLimits: board.Record})
		if err != nil {
			t.Fatal(err)
		}
		srv.Enqueue(tc.reply)
		drain(t, c)
		got, ok := board.Latest("p-" + tc.kind)
		if !ok || len(got.Headers) != len(tc.want) || got.At.IsZero() {
			t.Fatalf("%s: board has %+v, want %v", tc.kind, got, tc.want)
		}
		for k, v := range tc.want {
			if got.Headers[k] != v {
				t.Errorf("%s: %s = %q, want %q", tc.kind, k, got.Headers[k], v)
			}
		}
		// A refusal carries them too, retry-after included.
		srv.Enqueue(fakeai.HTTPError(429, "").WithHeaders(map[string]string{"x-ratelimit-remaining-tokens": "0"}).WithRetryAfter("7"))
		drain(t, c)
		got, _ = board.Latest("p-" + tc.kind)
		if got.Headers["x-ratelimit-remaining-tokens"] != "0" || got.Headers["retry-after"] != "7" {
			t.Errorf("%s: after a 429 the board has %v", tc.kind, got.Headers)
		}
	}
}

func drain(t *testing.T, c provider.Model) {
	t.Helper()
	_ = c.Stream(context.Background(), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Text: "hello"}}}, provider.Handler{})
}
