package core

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stateIn drives a fresh run to the given phase with one call c1 outstanding where relevant.
func stateIn(t *testing.T, p Phase) State {
	t.Helper()
	var s State
	if p == PhaseIdle {
		return s
	}
	// Three earlier exchanges: enough rows for a compaction to have a cut.
	rows, _ := history("u a t u a t u a t")
	steps := []Input{Started{Now: t0, SessionID: "s", RunID: "r", Prompt: "hi", Tools: []ToolInfo{{Name: "t"}}, Limits: Limits{ContextWindow: 100},
		Rows: rows}}
	switch p {
	case PhaseApproving, PhaseTools:
		steps = append(steps, ModelResponded{Now: t0, Response: ModelResponse{Status: ResponseOK,
			ToolCalls: []Call{{ID: "c1", Name: "t", Arguments: "{}"}}, Usage: Usage{InputTokens: 10}}})
		if p == PhaseTools {
			steps = append(steps, ApprovalDecided{Now: t0, CallID: "c1", Approved: true})
		}
	case PhaseCompacting:
		steps = append(steps, ModelResponded{Now: t0, Response: ModelResponse{Status: ResponseOK,
			ToolCalls: []Call{{ID: "c1", Name: "t", Arguments: "{}"}}, Usage: Usage{InputTokens: 85}}},
			ApprovalDecided{Now: t0, CallID: "c1", Approved: false})
	case PhaseDone:
		steps = append(steps, CancelRequested{Now: t0})
	}
	for _, in := range steps {
		var err error
		if s, _, err = Next(s, in); err != nil {
			t.Fatalf("reach %s: %v", p, err)
		}
	}
	if s.Phase != p {
		t.Fatalf("reached %s, want %s", s.Phase, p)
	}
	return s
}

// TestEveryPairIsHandledOrRefused walks the full phase x input matrix: each pair is either
// accepted or refused with ErrUnexpectedInput/ErrFinished, and a refusal leaves the state alone.
func TestEveryPairIsHandledOrRefused(t *testing.T) {
	inputs := map[string]Input{
		"started":   Started{Now: t0, SessionID: "s", RunID: "r", Prompt: "x"},
		"model":     ModelResponded{Now: t0, Response: ModelResponse{Status: ResponseOK, Text: "x"}},
		"approval":  ApprovalDecided{Now: t0, CallID: "c1", Approved: true},
		"tool":      ToolFinished{Now: t0, CallID: "c1", Content: "x"},
		"compacted": Compacted{Now: t0, OK: true, ContextTokens: 10},
		"cancel":    CancelRequested{Now: t0},
		"tick":      Ticked{Now: t0},
		"failed":    Failed{Now: t0, Err: "disk full"},
		"queued":    MessageQueued{Now: t0, Message: QueuedMessage{ID: "q1", Text: "also this"}},
		"withdrawn": QueueWithdrawn{Now: t0, ID: "q1"},
		"stored":    Stored{Rows: []RowRef{{Seq: 99, Kind: "note"}}},
	}
	accepts := map[Phase]string{
		PhaseIdle:       "started",
		PhaseStreaming:  "model cancel tick failed queued withdrawn stored",
		PhaseApproving:  "approval cancel tick failed queued withdrawn stored",
		PhaseTools:      "tool cancel tick failed queued withdrawn stored",
		PhaseCompacting: "compacted cancel tick failed queued withdrawn stored",
		PhaseDone:       "",
	}
	for phase, ok := range accepts {
		for name, in := range inputs {
			s := stateIn(t, phase)
			next, _, err := Next(s, in)
			want := strings.Contains(" "+ok+" ", " "+name+" ")
			if want && err != nil {
				t.Errorf("%s + %s: refused: %v", phase, name, err)
			}
			if !want {
				if !errors.Is(err, ErrUnexpectedInput) && !errors.Is(err, ErrFinished) {
					t.Errorf("%s + %s: err = %v, want an explicit refusal", phase, name, err)
				}
				if next.Phase != s.Phase || next.Turns != s.Turns || len(next.Outstanding()) != len(s.Outstanding()) {
					t.Errorf("%s + %s: refused input changed the state", phase, name)
				}
			}
		}
	}
}

func TestNextDoesNotMutateCallersState(t *testing.T) {
	s := stateIn(t, PhaseTools)
	before := s.Outstanding()
	if _, _, err := Next(s, ToolFinished{Now: t0, CallID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Outstanding(); len(got) != len(before) {
		t.Fatalf("old state changed: outstanding %v, was %v", got, before)
	}
}

func TestCompactionCut(t *testing.T) {
	rows := func(kinds string) []RowRef {
		var out []RowRef
		for i, f := range strings.Fields(kinds) {
			r := RowRef{Seq: int64(i + 1)}
			switch f[0] {
			case 'u':
				r.Kind = KindUser
			case 'a':
				r.Kind = KindAssistant
			case 't':
				r.Kind = KindToolResult
			case 'p':
				r.Kind = KindApproval
			case 's':
				r.Kind = KindSummary
				r.ThroughSeq, _ = strconv.ParseInt(f[1:], 10, 64)
			}
			out = append(out, r)
		}
		return out
	}
	tests := []struct {
		name  string
		rows  string
		keep  int
		want  int64
		wantK bool
	}{
		{"keeps two turns with their results", "u a p t a p t a t", 2, 4, true},
		{"keeps the prompt with the kept turn", "u a t u a t", 1, 3, true},
		{"never cuts between a turn and its results", "u a p t t t a t", 1, 6, true},
		{"too few turns", "u a t", 2, 0, false},
		{"nothing new since the last summary", "u a t s3 a t", 1, 0, false},
		{"summarises past an old summary", "u a t s3 a t a t", 1, 6, true},
		{"emergency keeps one", "u a t a t a t", 1, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CompactionCut(rows(tt.rows), tt.keep)
			if got != tt.want || ok != tt.wantK {
				t.Errorf("CompactionCut(%q, %d) = %d, %v; want %d, %v", tt.rows, tt.keep, got, ok, tt.want, tt.wantK)
			}
		})
	}
}

// "Compact up to here" on any row: the cut moves to the end of that row's step, so a turn
// keeps its results; rows already summarised give nothing new.
func TestCutAt(t *testing.T) {
	rows := []RowRef{
		{Seq: 1, Kind: KindUser}, {Seq: 2, Kind: KindAssistant}, {Seq: 3, Kind: KindApproval},
		{Seq: 4, Kind: KindToolResult}, {Seq: 5, Kind: KindAssistant}, {Seq: 6, Kind: KindUser},
		{Seq: 7, Kind: KindAssistant},
	}
	cases := []struct {
		at, want int64
		ok       bool
	}{{1, 1, true}, {2, 4, true}, {3, 4, true}, {4, 4, true}, {5, 5, true}, {7, 7, true}, {0, 0, false}}
	for _, c := range cases {
		got, ok := CutAt(rows, c.at)
		if got != c.want || ok != c.ok {
			t.Errorf("CutAt(%d) = %d %v, want %d %v", c.at, got, ok, c.want, c.ok)
		}
	}
	summarised := append(rows, RowRef{Seq: 8, Kind: KindSummary, ThroughSeq: 5})
	if _, ok := CutAt(summarised, 4); ok {
		t.Error("a cut inside the summarised rows must give nothing")
	}
	if got, ok := CutAt(summarised, 6); !ok || got != 6 {
		t.Errorf("cut after the summary = %d %v", got, ok)
	}
}

func TestSignatureIgnoresKeyOrderAndSpace(t *testing.T) {
	a := signature(Call{Name: "read_file", Arguments: `{"path":"a","limit":10}`})
	b := signature(Call{Name: "read_file", Arguments: "{ \"limit\": 10,\n \"path\": \"a\" }"})
	c := signature(Call{Name: "read_file", Arguments: `{"path":"b","limit":10}`})
	d := signature(Call{Name: "list_dir", Arguments: `{"path":"a","limit":10}`})
	if a != b {
		t.Errorf("reordered keys differ: %q vs %q", a, b)
	}
	if a == c || a == d {
		t.Error("different calls share a signature")
	}
}

func TestPriceCost(t *testing.T) {
	table := PriceTable{"gpt-x": {InputPerMTok: 2.5, OutputPerMTok: 10}}
	if got := table.Lookup("gpt-x").Cost(Usage{InputTokens: 1_000_000, OutputTokens: 100_000}); got != 3.5 {
		t.Errorf("cost = %v, want 3.5", got)
	}
	if got := table.Lookup("llama-local").Cost(Usage{InputTokens: 1e9}); got != 0 {
		t.Errorf("unknown (local) model cost %v, want 0", got)
	}
}

func TestSoftLimitAsksForWrapup(t *testing.T) {
	s, _, _ := Next(State{}, Started{Now: t0, SessionID: "s", RunID: "r", Prompt: "x", Tools: []ToolInfo{{Name: "t"}}, Limits: Limits{Timeout: 10 * time.Second}})
	s, _, err := Next(s, ModelResponded{Now: t0.Add(9 * time.Second), Response: ModelResponse{Status: ResponseOK,
		ToolCalls: []Call{{ID: "c", Name: "t", Arguments: "{}"}}}})
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ = Next(s, ApprovalDecided{Now: t0.Add(9 * time.Second), CallID: "c", Approved: false})
	if s.Phase != PhaseStreaming {
		t.Fatalf("phase %s", s.Phase)
	}
	if s.budget().Warnings[0] != "time" {
		t.Errorf("warnings = %v, want time", s.budget().Warnings)
	}
}
