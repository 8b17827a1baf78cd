package config_test

import (
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The one run-spec builder: the saved budgets as limits, with the run's model's price and
// context window, the built-in system prompt naming the folder; then a session's own mode and
// budgets over it, except where a flag names the value.
func TestRunSpecFromSettingsThenSessionThenFlags(t *testing.T) {
	b := config.Budgets{MaxTurns: 7, MaxToolCalls: 9, MaxTokens: 1000, MaxCostUSD: 0.5, TimeoutSeconds: 60}
	prices := []config.Price{{Model: "big", Price: core.Price{InputPerMTok: 5, OutputPerMTok: 15}}}
	windows := []config.ContextWindow{{Model: "big", Tokens: 32768}}
	r := config.Resolved{Model: "big", ApprovalMode: tools.ModeReadOnly, Limits: config.ModelLimits(b, prices, windows, "big")}
	spec := r.RunSpec("s1", "/w", "hi", "")
	l := spec.Limits
	if l.MaxTurns != 7 || l.MaxToolCalls != 9 || l.MaxTokens != 1000 || l.MaxCostUSD != 0.5 || l.Timeout != time.Minute ||
		l.Price.OutputPerMTok != 15 || l.ContextWindow != 32768 {
		t.Fatalf("limits = %+v", l)
	}
	if spec.Mode != tools.ModeReadOnly || spec.Model != "big" || spec.SystemPrompt == "" || spec.Workspace != "/w" {
		t.Fatalf("spec = %+v", spec)
	}
	if l := config.ModelLimits(b, prices, windows, "local"); l.Price.InputPerMTok != 0 || l.ContextWindow != config.DefaultContextWindow {
		t.Fatalf("an unlisted model: %+v; want free and the default window", l)
	}

	turns, secs := 3, 5
	session := store.SessionBudgets{MaxTurns: &turns, TimeoutSeconds: &secs}
	flagTurns := 2
	config.ApplySession(&spec, "auto", session, config.Overrides{MaxTurns: &flagTurns})
	if spec.Mode != tools.ModeAuto || spec.Limits.MaxTurns != 7 || spec.Limits.Timeout != 5*time.Second {
		t.Fatalf("after the session (turns named by a flag): mode %s, turns %d, timeout %s", spec.Mode, spec.Limits.MaxTurns, spec.Limits.Timeout)
	}
	mode := "deny"
	spec.Mode = tools.ModeDeny // as the flag resolved it
	config.ApplySession(&spec, "auto", store.SessionBudgets{}, config.Overrides{ApprovalMode: &mode})
	if spec.Mode != tools.ModeDeny {
		t.Fatalf("a flagged mode was replaced by the session's: %s", spec.Mode)
	}
}
