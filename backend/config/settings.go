package config

import (
	"math"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// The settings the window saves and every front end reads (Effective): budgets, prices and
// context windows, under the settings table's keys below. The window's screen (backend/desktop)
// edits them; `loopdesk run`, `loopdesk settings` and `loopdesk acp` resolve them here.

// Keys of the settings table. The API key is never one of them.
const (
	SettingProvider       = "endpoint.provider"
	SettingBaseURL        = "endpoint.base_url"
	SettingModel          = "endpoint.model"
	SettingApprovalMode   = "approval.mode"
	SettingBudgets        = "run.budgets"
	SettingPrices         = "model.prices"
	SettingContextWindows = "model.context_windows"
	SettingVision         = "model.vision"
)

// Budgets are the default limits of a run; 0 means no limit.
type Budgets struct {
	MaxTurns       int     `json:"max_turns"`
	MaxToolCalls   int     `json:"max_tool_calls"`
	MaxTokens      int64   `json:"max_tokens"`
	MaxCostUSD     float64 `json:"max_cost_usd"`
	TimeoutSeconds int     `json:"timeout_seconds"`
}

// DefaultBudgets bound a run that the person has not configured: generous
// enough for real work, tight enough that a runaway loop stops by itself.
var DefaultBudgets = Budgets{MaxTurns: 50, MaxToolCalls: 200, TimeoutSeconds: 1800}

// Limits are the budgets as the loop takes them (0 is no limit): the one conversion from
// what Settings saves to what a run is bound by.
func (b Budgets) Limits() core.Limits {
	return core.Limits{MaxTurns: b.MaxTurns, MaxToolCalls: b.MaxToolCalls, MaxTokens: b.MaxTokens,
		MaxCostUSD: b.MaxCostUSD, Timeout: time.Duration(b.TimeoutSeconds) * time.Second}
}

// Price is one row of the saved price table: a model and what it costs (core.Price, the one
// price type: US dollars per million tokens; cache reads and writes are parts of the input
// priced apart, 0 prices them as input). Its JSON is flat; as in a run's limits an unset cache
// price is left out, and `settings --json` writes the table with both (cli.savedPrices).
type Price struct {
	Model string `json:"model"`
	core.Price
}

// Invalid says a rate is negative or not a number.
func (p Price) Invalid() bool {
	for _, v := range []float64{p.InputPerMTok, p.OutputPerMTok, p.CacheReadPerMTok, p.CacheWritePerMTok} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// ContextWindow is a model's context size in tokens.
type ContextWindow struct {
	Model  string `json:"model"`
	Tokens int64  `json:"tokens"`
}

// DefaultContextWindow is assumed for a model without an entry in the table.
const DefaultContextWindow = 128000

// PriceOf returns the price of model in prices (zero when unlisted: local models are free).
func PriceOf(prices []Price, model string) Price {
	for _, p := range prices {
		if p.Model == model {
			return p
		}
	}
	return Price{Model: model}
}

// ContextWindowOf returns model's context window in windows, or DefaultContextWindow.
func ContextWindowOf(windows []ContextWindow, model string) int64 {
	for _, w := range windows {
		if w.Model == model {
			return w.Tokens
		}
	}
	return DefaultContextWindow
}

// ModelLimits are a run's limits: the budgets, with model's price and context window from
// the tables.
func ModelLimits(b Budgets, prices []Price, windows []ContextWindow, model string) core.Limits {
	l := b.Limits()
	l.Price = PriceOf(prices, model).Price
	l.ContextWindow = ContextWindowOf(windows, model)
	return l
}
