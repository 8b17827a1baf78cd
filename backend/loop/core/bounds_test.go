package core

import (
	"testing"
	"time"
)

// Left is the one place "a limit minus what was spent" is computed: a run that goes on after
// a Stop hook gets it, and a child's share is cut from it.
func TestLimitsLeft(t *testing.T) {
	l := Limits{MaxTurns: 10, MaxToolCalls: 5, MaxTokens: 1000, MaxCostUSD: 1, Timeout: time.Minute, ContextWindow: 8000}
	for _, tc := range []struct {
		name   string
		spent  Counters
		worked time.Duration
		want   Limits
		ok     bool
	}{
		{"nothing spent", Counters{}, 0, l, true},
		{"some of each", Counters{Turns: 3, ToolCalls: 2, InputTokens: 300, OutputTokens: 100, CostUSD: 0.25}, 20 * time.Second,
			Limits{MaxTurns: 7, MaxToolCalls: 3, MaxTokens: 600, MaxCostUSD: 0.75, Timeout: 40 * time.Second, ContextWindow: 8000}, true},
		{"turns used up", Counters{Turns: 10}, 0,
			Limits{MaxTurns: 0, MaxToolCalls: 5, MaxTokens: 1000, MaxCostUSD: 1, Timeout: time.Minute, ContextWindow: 8000}, false},
		{"time used up", Counters{}, time.Minute,
			Limits{MaxTurns: 10, MaxToolCalls: 5, MaxTokens: 1000, MaxCostUSD: 1, ContextWindow: 8000}, false},
		{"cost used up", Counters{CostUSD: 1.5}, 0,
			Limits{MaxTurns: 10, MaxToolCalls: 5, MaxTokens: 1000, MaxCostUSD: -0.5, Timeout: time.Minute, ContextWindow: 8000}, false},
	} {
		got, ok := l.Left(tc.spent, tc.worked)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Left = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A run without limits has none left to run out of, however much it spent.
	if got, ok := (Limits{}).Left(Counters{Turns: 99, CostUSD: 9}, time.Hour); got != (Limits{}) || !ok {
		t.Errorf("no limits: Left = %+v, %v", got, ok)
	}
}

// Share never gives a child nothing: a budget almost used still leaves each child one turn,
// one call, one token and a moment, so the child starts and reports the bound it hits.
func TestLimitsShareNeverZero(t *testing.T) {
	l := Limits{MaxTurns: 3, MaxToolCalls: 2, MaxTokens: 10, MaxCostUSD: 0.01, Timeout: time.Second}
	got := l.Share(Counters{Turns: 3, ToolCalls: 2, InputTokens: 10, CostUSD: 0.01}, time.Second, 3)
	want := Limits{MaxTurns: 1, MaxToolCalls: 1, MaxTokens: 1, MaxCostUSD: 1e-9, Timeout: time.Millisecond}
	if got != want {
		t.Errorf("Share = %+v, want %+v", got, want)
	}
	if got := (Limits{}).Share(Counters{Turns: 5}, time.Hour, 2); got != (Limits{}) {
		t.Errorf("no limits: Share = %+v, want none", got)
	}
}

// An agent's max turns tighten a child's turn bound and never loosen it.
func TestCapTurns(t *testing.T) {
	for _, tc := range []struct{ limit, agent, want int }{{10, 3, 3}, {3, 10, 3}, {0, 5, 5}, {4, 0, 4}, {0, 0, 0}} {
		if got := (Limits{MaxTurns: tc.limit}).CapTurns(tc.agent).MaxTurns; got != tc.want {
			t.Errorf("limit %d capped by agent's %d = %d, want %d", tc.limit, tc.agent, got, tc.want)
		}
	}
}
