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
	// t is a task tool, so c1 has a child whose waiting the core can be told of (ChildWaiting).
	steps := []Input{Started{Now: t0, SessionID: "s", RunID: "r", Prompt: "hi", Tools: []ToolInfo{{Name: "t", ReadOnly: true, Kind: ToolTask}},
		Limits: Limits{ContextWindow: 100}, Rows: rows, StopHook: "Stop"}}
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
	case PhaseHook:
		steps = append(steps, ModelResponded{Now: t0, Response: ModelResponse{Status: ResponseOK, Text: "done"}})
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
		"storage":   StorageFailed{Now: t0, Fault: StorageFault{Path: "/d/loopdesk.db", Full: true, Seq: 3}},
		"queued":    MessageQueued{Now: t0, Message: QueuedMessage{ID: "q1", Text: "also this"}},
		"withdrawn": QueueWithdrawn{Now: t0, ID: "q1"},
		"stored":    Stored{Rows: []RowRef{{Seq: 99, Kind: "note"}}},
		"hook":      HookAnswered{Now: t0, Block: true, Reason: "not yet"},
		"recorded":  Recorded{Rows: []Row{NoteRow{Source: "x", Text: "y"}}},
		"child":     ChildWaiting{Now: t0, CallID: "c1", Waiting: true},
	}
	accepts := map[Phase]string{
		PhaseIdle:       "started",
		PhaseStreaming:  "model cancel tick failed storage queued withdrawn stored recorded",
		PhaseApproving:  "approval cancel tick failed storage queued withdrawn stored recorded",
		PhaseTools:      "tool child cancel tick failed storage queued withdrawn stored recorded",
		PhaseCompacting: "compacted cancel tick failed storage queued withdrawn stored recorded",
		PhaseHook:       "hook cancel tick failed storage queued withdrawn stored recorded",
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
	s, effects, _ := Next(s, ApprovalDecided{Now: t0.Add(9 * time.Second), CallID: "c", Approved: false})
	if s.Phase != PhaseStreaming {
		t.Fatalf("phase %s", s.Phase)
	}
	if s.budget().Warnings[0] != "time" {
		t.Errorf("warnings = %v, want time", s.budget().Warnings)
	}
	// The note is a stored row, Loopdesk's, just before the call it is meant for.
	if notes := budgetNotes(effects); len(notes) != 1 || notes[0].Source != NoteSourceBudget || !strings.Contains(notes[0].Text, "nearly used up (time)") {
		t.Fatalf("first call past the soft limit: notes %+v in %#v", notes, effects)
	}
	if _, ok := effects[len(effects)-1].(CallModel); !ok {
		t.Fatalf("the call does not follow the note: %#v", effects)
	}
	// Later calls find it in the rows: it is stored once per run.
	s, _, _ = Next(s, ModelResponded{Now: t0.Add(9 * time.Second), Response: ModelResponse{Status: ResponseOK,
		ToolCalls: []Call{{ID: "d", Name: "t", Arguments: `{"again":1}`}}}})
	_, effects, _ = Next(s, ApprovalDecided{Now: t0.Add(9 * time.Second), CallID: "d", Approved: false})
	if notes := budgetNotes(effects); len(notes) != 0 {
		t.Fatalf("the note was stored again: %+v", notes)
	}
}

func budgetNotes(effects []Effect) []NoteRow {
	var out []NoteRow
	for _, e := range effects {
		if p, ok := e.(Persist); ok {
			for _, r := range p.Rows {
				if n, ok := r.(NoteRow); ok {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// TestBranchedStatesKeepTheirRows: two inputs fed to the same state each see their own rows,
// so a driver (or a test) that keeps an old state never finds another branch's rows in it.
func TestBranchedStatesKeepTheirRows(t *testing.T) {
	rows, _ := history("u a t u a t u a t")
	s, _, err := Next(State{}, Started{Now: t0, SessionID: "s", RunID: "r", Prompt: "x", Rows: rows, Limits: Limits{ContextWindow: 100}})
	if err != nil {
		t.Fatal(err)
	}
	a, _, errA := Next(s, Stored{Rows: []RowRef{{Seq: 10, Kind: KindUser}}})
	b, _, errB := Next(s, Stored{Rows: []RowRef{{Seq: 10, Kind: KindAssistant}, {Seq: 11, Kind: KindToolResult}}})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if got := len(s.rowsOf()); got != 9 {
		t.Errorf("the old state sees %d rows, want 9", got)
	}
	if got := a.rowsOf(); len(got) != 10 || got[9].Kind != KindUser {
		t.Errorf("branch a sees %v", got[9:])
	}
	if got := b.rowsOf(); len(got) != 11 || got[9].Kind != KindAssistant {
		t.Errorf("branch b sees %v", got[9:])
	}
	// Moving forward appends in place: a third row added to b keeps a's rows apart too.
	c, _, _ := Next(b, Stored{Rows: []RowRef{{Seq: 12, Kind: KindUser}}})
	if len(c.rowsOf()) != 12 || a.rowsOf()[9].Kind != KindUser {
		t.Errorf("rows mixed: c %d rows, a's row 10 %s", len(c.rowsOf()), a.rowsOf()[9].Kind)
	}
}

// TestInFlight finds the exchange a context_exceeded stop left in flight.
func TestInFlight(t *testing.T) {
	for _, c := range []struct {
		history string
		want    *Recovery
	}{
		{"", nil},
		{"u:5 a:7 t:9", &Recovery{FromSeq: 1, ThroughSeq: 3, Tokens: 21}},
		{"u a t u:1 a:2 t:3 t:4", &Recovery{FromSeq: 4, ThroughSeq: 7, Tokens: 10}},
		// Rows a summary in effect replaced, and the summary itself, never count.
		{"u a t s<3", nil},
		{"u a t s<3 a:4 t:6", &Recovery{FromSeq: 5, ThroughSeq: 6, Tokens: 10}},
		// A set-aside covers its rows: the exchange after it is the one in flight.
		{"u a t u a t x<4-6 u:3 a:3", &Recovery{FromSeq: 8, ThroughSeq: 9, Tokens: 6}},
	} {
		rows, err := history(c.history)
		if err != nil {
			t.Fatal(err)
		}
		got := InFlight(rows)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("InFlight(%q) = %+v, want %+v", c.history, got, c.want)
		}
	}
}
