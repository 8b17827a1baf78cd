package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Limits are a run's budgets. A zero value means "no limit" for every field except the
// fractions, where zero means "use the default".
type Limits struct {
	MaxTurns     int           `json:"max_turns,omitempty"`
	MaxToolCalls int           `json:"max_tool_calls,omitempty"`
	MaxTokens    int64         `json:"max_tokens,omitempty"`
	MaxCostUSD   float64       `json:"max_cost_usd,omitempty"`
	Timeout      time.Duration `json:"timeout,omitempty"`
	// ContextWindow is the model's window in tokens; 0 disables compaction.
	ContextWindow int64 `json:"context_window,omitempty"`
	// CompactAt is the fill fraction that triggers compaction (default 0.8).
	CompactAt float64 `json:"compact_at,omitempty"`
	// SoftAt is the fraction of a budget past which the model is asked to finish (default 0.8).
	SoftAt float64 `json:"soft_at,omitempty"`
	// KeepTurns is how many latest assistant turns compaction keeps verbatim (default 2).
	KeepTurns int `json:"keep_turns,omitempty"`
	// Price is what this run's model costs; the zero value (a local model) costs nothing.
	Price Price `json:"price"`
}

// ParseLimits reads limits stored with a run (store.Run.Limits); empty means none.
func ParseLimits(raw []byte) (Limits, error) {
	var l Limits
	if len(bytes.TrimSpace(raw)) == 0 {
		return l, nil
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return Limits{}, fmt.Errorf("read a run's limits: %w", err)
	}
	return l, nil
}

// Defaults for the fractions in Limits.
const (
	DefaultCompactAt  = 0.8
	EmergencyCompact  = 0.95
	DefaultSoftAt     = 0.8
	DefaultKeepTurns  = 2
	repeatWarnAt      = 3 // the third identical call gets an error result instead of running
	repeatStopAt      = 4 // the fourth ends the run as loop_detected
	resultTokenExtra  = 4 // per-message overhead added to the size estimate of a tool result
	charsPerTokenEst  = 4
	emergencyKeepTurn = 1
)

func (l Limits) compactAt() float64 {
	if l.CompactAt > 0 {
		return l.CompactAt
	}
	return DefaultCompactAt
}

func (l Limits) softAt() float64 {
	if l.SoftAt > 0 {
		return l.SoftAt
	}
	return DefaultSoftAt
}

func (l Limits) keepTurns() int {
	if l.KeepTurns > 0 {
		return l.KeepTurns
	}
	return DefaultKeepTurns
}

// Left is what is left of l after spent and worked (the run's time, the person's waiting
// excluded); ok is false when a limit is used up. Limits l does not have stay unset.
func (l Limits) Left(spent Counters, worked time.Duration) (left Limits, ok bool) {
	ok = true
	sub := func(limit, used int64) int64 {
		if limit <= 0 {
			return limit
		}
		if used >= limit {
			ok = false
		}
		return limit - used
	}
	l.MaxTurns = int(sub(int64(l.MaxTurns), int64(spent.Turns)))
	l.MaxToolCalls = int(sub(int64(l.MaxToolCalls), int64(spent.ToolCalls)))
	l.MaxTokens = sub(l.MaxTokens, spent.InputTokens+spent.OutputTokens)
	if l.MaxCostUSD > 0 {
		if l.MaxCostUSD -= spent.CostUSD; l.MaxCostUSD <= 0 {
			ok = false
		}
	}
	if l.Timeout > 0 {
		if l.Timeout -= worked; l.Timeout <= 0 {
			ok = false
		}
	}
	return l, ok
}

// Share is each of n children's slice of what is left of l (Left): turns, tool calls, tokens
// and cost divided by n (at least one turn, one call, one token), and the time left. Limits l
// does not have, the children do not have either. A child's turns and calls count against
// the parent's own when it returns (ToolFinished.Child), so one turn is kept back for the
// parent to read the answers.
func (l Limits) Share(spent Counters, worked time.Duration, n int) Limits {
	n = max(n, 1)
	left, _ := l.Left(spent, worked)
	if l.MaxTurns > 0 {
		left.MaxTurns = max(1, (left.MaxTurns-1)/n)
	}
	if l.MaxToolCalls > 0 {
		left.MaxToolCalls = max(1, left.MaxToolCalls/n)
	}
	if l.MaxTokens > 0 {
		left.MaxTokens = max(1, left.MaxTokens/int64(n))
	}
	if l.MaxCostUSD > 0 {
		left.MaxCostUSD = max(1e-9, left.MaxCostUSD/float64(n))
	}
	if l.Timeout > 0 {
		left.Timeout = max(time.Millisecond, left.Timeout)
	}
	return left
}

// CapTurns is l with a turn bound of at most n (an agent's max turns): it tightens the bound,
// never loosens it; n <= 0 leaves l as it is.
func (l Limits) CapTurns(n int) Limits {
	if n > 0 && (l.MaxTurns <= 0 || n < l.MaxTurns) {
		l.MaxTurns = n
	}
	return l
}

// Price is USD per million tokens. Cache reads and writes have their own prices (Anthropic
// charges 0.1x and 1.25x input; OpenAI-style servers discount cached input); a zero cache
// price charges those tokens at the input price, so an unset price never undercounts.
type Price struct {
	InputPerMTok      float64 `json:"input_per_mtok"`
	OutputPerMTok     float64 `json:"output_per_mtok"`
	CacheReadPerMTok  float64 `json:"cache_read_per_mtok,omitempty"`
	CacheWritePerMTok float64 `json:"cache_write_per_mtok,omitempty"`
}

// Cost returns what u costs at p.
func (p Price) Cost(u Usage) float64 {
	read, write := p.CacheReadPerMTok, p.CacheWritePerMTok
	if read == 0 {
		read = p.InputPerMTok
	}
	if write == 0 {
		write = p.InputPerMTok
	}
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*p.InputPerMTok + float64(u.CacheReadTokens)*read +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
}

// PriceTable maps a model name to its price. Models not in the table cost nothing, which is
// right for local servers; the user edits the table in settings.
type PriceTable map[string]Price

// Lookup returns the price of model, zero when unknown.
func (t PriceTable) Lookup(model string) Price { return t[model] }

// EstimateTokens is the rough size of text in tokens, used only where no server count exists.
func EstimateTokens(text string) int64 { return int64(len(text)+charsPerTokenEst-1) / charsPerTokenEst }

// EstimateMessage is the rough size of one message of the request in tokens: its text and
// the per-message overhead.
func EstimateMessage(text string) int64 { return EstimateMessageLen(len(text)) }

// EstimateMessageLen is EstimateMessage of a message n bytes long (a stored payload, without
// copying it into a string).
func EstimateMessageLen(n int) int64 {
	return int64(n+charsPerTokenEst-1)/charsPerTokenEst + resultTokenExtra
}

// signature identifies "the same call": the tool name plus its arguments with keys sorted and
// whitespace dropped, so {"a":1, "b":2} and {"b":2,"a":1} count as identical.
func signature(c Call) string {
	var v any
	if err := json.Unmarshal([]byte(c.Arguments), &v); err != nil {
		return c.Name + "\x00" + c.Arguments
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // re-encoding a decoded value cannot fail
	return c.Name + "\x00" + string(bytes.TrimSpace(buf.Bytes()))
}

// hardStop returns the budget that is used up, if any, counting only tokens, cost and time:
// the ones a model call consumes. Turns and tool calls are checked where they are spent.
func (s State) hardStop() (StopReason, string) {
	l := s.Limits
	switch {
	case l.Timeout > 0 && s.worked() >= l.Timeout:
		return StopTimeout, "wall-clock budget of " + l.Timeout.String() + " used"
	case l.MaxTokens > 0 && s.InputTokens+s.OutputTokens >= l.MaxTokens:
		return StopTokenBudget, "token budget used"
	case l.MaxCostUSD > 0 && s.CostUSD >= l.MaxCostUSD:
		return StopCostBudget, "cost budget used"
	}
	return "", ""
}

// NoteSourceBudget is the Source of the note that asks the model to finish (BudgetNote).
const NoteSourceBudget = "budget"

// BudgetNote is the note a run stores once, before its first model call past a soft limit:
// which budgets are nearly used, and to finish concisely.
func BudgetNote(warnings []string) string {
	names := make([]string, len(warnings))
	for i, w := range warnings {
		names[i] = strings.ReplaceAll(w, "_", " ")
	}
	return "A budget for this run is nearly used up (" + strings.Join(names, ", ") + "). Finish now: give your best " +
		"answer concisely and make no more tool calls unless they are essential."
}

// softWarnings lists the budgets past their soft limit.
func (s State) softWarnings() []string {
	l := s.Limits
	f := l.softAt()
	var w []string
	if l.MaxTurns > 0 && float64(s.Turns) >= f*float64(l.MaxTurns) {
		w = append(w, "turns")
	}
	if l.MaxToolCalls > 0 && float64(s.ToolCalls) >= f*float64(l.MaxToolCalls) {
		w = append(w, "tool_calls")
	}
	if l.MaxTokens > 0 && float64(s.InputTokens+s.OutputTokens) >= f*float64(l.MaxTokens) {
		w = append(w, "tokens")
	}
	if l.MaxCostUSD > 0 && s.CostUSD >= f*l.MaxCostUSD {
		w = append(w, "cost")
	}
	if l.Timeout > 0 && float64(s.worked()) >= f*float64(l.Timeout) {
		w = append(w, "time")
	}
	return w
}

func (s State) budget() BudgetPayload {
	l := s.Limits
	return BudgetPayload{
		Turns: s.Turns, MaxTurns: l.MaxTurns,
		ToolCalls: s.ToolCalls, MaxToolCalls: l.MaxToolCalls,
		Tokens: s.InputTokens + s.OutputTokens, MaxTokens: l.MaxTokens,
		CostUSD: s.CostUSD, MaxCostUSD: l.MaxCostUSD,
		ElapsedMS: s.worked().Milliseconds(), TimeoutMS: l.Timeout.Milliseconds(),
		ContextTokens: s.ContextTokens, ContextWindow: l.ContextWindow,
		Warnings: s.softWarnings(),
		Meters:   s.meters(), Repeats: s.repeats(),
	}
}

// contextFill is the estimated fill of the context window, 0 when the window is unknown.
func (s State) contextFill() float64 {
	if s.Limits.ContextWindow <= 0 {
		return 0
	}
	return float64(s.ContextTokens) / float64(s.Limits.ContextWindow)
}
