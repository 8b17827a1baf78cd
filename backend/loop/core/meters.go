package core

import "time"

// MeterKey names one budget meter.
type MeterKey string

// The meters, in the order the window draws them.
const (
	MeterTurns     MeterKey = "turns"
	MeterToolCalls MeterKey = "tool_calls"
	MeterTokens    MeterKey = "tokens"
	MeterCost      MeterKey = "cost"
	MeterTime      MeterKey = "time"
	MeterContext   MeterKey = "context"
)

// MeterUnit says how a meter's value and limit are counted.
type MeterUnit string

const (
	UnitCount   MeterUnit = "count"
	UnitTokens  MeterUnit = "tokens"
	UnitUSD     MeterUnit = "usd"
	UnitSeconds MeterUnit = "seconds"
)

// MeterLevel is how close a meter is to its limit: past the soft limit the model is asked to
// finish; at the hard limit the run stops (for the context meter: compaction triggers).
type MeterLevel string

const (
	LevelOK   MeterLevel = "ok"
	LevelSoft MeterLevel = "soft"
	LevelHard MeterLevel = "hard"
)

// Meter is one budget as the window draws it. Limit 0 means no limit (Fraction is then 0).
// Every number is computed here; the page only formats Value and Limit by Unit.
type Meter struct {
	Key      MeterKey   `json:"key"`
	Label    string     `json:"label"`
	Value    float64    `json:"value"`
	Limit    float64    `json:"limit"`
	Unit     MeterUnit  `json:"unit"`
	Fraction float64    `json:"fraction"`
	Level    MeterLevel `json:"level"`
	// Note says what the meter counts, where its label alone would mislead (the Time meter
	// leaves out the time spent waiting for the person).
	Note string `json:"note,omitempty"`
	// CountsFromMS, set on the Time meter while a run is working, is the wall-clock time
	// (ms since the epoch) its value counts from: the page advances it as now − CountsFromMS
	// between budget events. Absent while the run waits for the person or is over: the
	// meter holds still.
	CountsFromMS int64 `json:"counts_from_ms,omitempty"`
}

// Repeats is the loop-detection state: the call repeated most often in the run, how many
// times, and the count at which the run stops.
type Repeats struct {
	Tool  string `json:"tool"`
	Count int    `json:"count"`
	Limit int    `json:"limit"`
}

// Usage of a run as the meters count it.
type MeterInput struct {
	Turns, ToolCalls int
	Tokens           int64
	CostUSD          float64
	// Elapsed is the run's time, the person's waiting excluded (State.Worked).
	Elapsed       time.Duration
	ContextTokens int64
	Limits        Limits
	// CountsFrom is when Elapsed would have been zero, while the run is working (zero
	// otherwise): the Time meter's CountsFromMS.
	CountsFrom time.Time
}

// Meters computes the six meters. soft levels use the limits' soft fraction; the context
// meter turns soft at the compaction threshold and hard at the emergency one.
func Meters(in MeterInput) []Meter {
	l := in.Limits
	soft := l.softAt()
	clock := meter(MeterTime, "Time", in.Elapsed.Seconds(), l.Timeout.Seconds(), UnitSeconds, soft, 1)
	clock.Note = TimeMeterNote
	if !in.CountsFrom.IsZero() {
		clock.CountsFromMS = in.CountsFrom.UnixMilli()
	}
	return []Meter{
		meter(MeterTurns, "Turns", float64(in.Turns), float64(l.MaxTurns), UnitCount, soft, 1),
		meter(MeterToolCalls, "Tool calls", float64(in.ToolCalls), float64(l.MaxToolCalls), UnitCount, soft, 1),
		meter(MeterTokens, "Tokens", float64(in.Tokens), float64(l.MaxTokens), UnitTokens, soft, 1),
		meter(MeterCost, "Cost", in.CostUSD, l.MaxCostUSD, UnitUSD, soft, 1),
		clock,
		meter(MeterContext, "Context", float64(in.ContextTokens), float64(l.ContextWindow), UnitTokens, l.compactAt(), EmergencyCompact),
	}
}

func meter(key MeterKey, label string, value, limit float64, unit MeterUnit, soft, hard float64) Meter {
	m := Meter{Key: key, Label: label, Value: value, Limit: limit, Unit: unit, Level: LevelOK}
	if limit <= 0 {
		m.Limit = 0
		return m
	}
	m.Fraction = min(max(value/limit, 0), 1)
	switch {
	case value >= hard*limit:
		m.Level = LevelHard
	case value >= soft*limit:
		m.Level = LevelSoft
	}
	return m
}

// meters is the state's meters.
func (s State) meters() []Meter {
	return Meters(MeterInput{Turns: s.Turns, ToolCalls: s.ToolCalls, Tokens: s.InputTokens + s.OutputTokens,
		CostUSD: s.CostUSD, Elapsed: s.worked(), ContextTokens: s.ContextTokens, Limits: s.Limits, CountsFrom: s.countsFrom()})
}

// repeats is the most repeated call of the run, nil until some call was made twice.
func (s State) repeats() *Repeats {
	var best *Repeats
	for sig, n := range s.seen {
		if n < 2 {
			continue
		}
		tool := sig
		for i := range sig {
			if sig[i] == 0 {
				tool = sig[:i]
				break
			}
		}
		if best == nil || n > best.Count || (n == best.Count && tool < best.Tool) {
			best = &Repeats{Tool: tool, Count: n, Limit: repeatStopAt}
		}
	}
	return best
}
