package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var t0 = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)

// step is one line of a transcript: exactly one input, optionally at a given offset from the
// start (default: one second after the previous step).
type step struct {
	At      string `json:"at"`
	Started *struct {
		Sandbox        string          `json:"sandbox"`
		Prompt         string          `json:"prompt"`
		Command        string          `json:"command"`
		Notes          []string        `json:"notes"` // the hook's notes stored after the prompt
		Model          string          `json:"model"`
		Limits         Limits          `json:"limits"`
		Timeout        string          `json:"timeout"`
		ContextTokens  int64           `json:"context_tokens"`
		Mode           string          `json:"mode"`
		Approval       string          `json:"approval"`
		Agent          string          `json:"agent"`
		Depth          int             `json:"depth"`
		TaskGranted    bool            `json:"task_granted"`
		NoPerson       bool            `json:"no_person"`
		StopHook       string          `json:"stop_hook"`
		PreCompactHook bool            `json:"pre_compact_hook"`
		Tools          []ToolInfo      `json:"tools"` // absent: builtinTools
		Queued         []QueuedMessage `json:"queued"`
		History        string          `json:"history"`       // the session's rows before the run: see history
		PreviousStop   StopReason      `json:"previous_stop"` // how the session's last run ended
		CompactThrough int64           `json:"compact_through"`
	} `json:"started"`
	Queue *struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"queue"`
	Withdraw *struct {
		ID string `json:"id"`
	} `json:"withdraw"`
	Model   *ModelResponse `json:"model"`
	Approve *struct {
		CallID    string `json:"call_id"`
		Approved  bool   `json:"approved"`
		By        string `json:"by"`
		Reason    string `json:"reason"`
		Arguments string `json:"arguments"`
		HookStop  string `json:"hook_stop"`
	} `json:"approve"`
	Tool *struct {
		CallID    string `json:"call_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
		Sandboxed bool   `json:"sandboxed"`
		HookStop  string `json:"hook_stop"`
	} `json:"tool"`
	// Recorded: hook runs an extension recorded, by event (stored as hook rows).
	Recorded  []string `json:"recorded"`
	Compacted *struct {
		OK            bool   `json:"ok"`
		Summary       string `json:"summary"`
		ContextTokens int64  `json:"context_tokens"`
		Usage         Usage  `json:"usage"`
		Called        *bool  `json:"called"` // a summary call was made; absent means true
		Err           string `json:"err"`
	} `json:"compacted"`
	Cancel *struct {
		Partial *ModelResponse `json:"partial"` // what the stopped model call had streamed
	} `json:"cancel"`
	Hook *struct {
		Stop       bool   `json:"stop"`
		StopReason string `json:"stop_reason"`
		Block      bool   `json:"block"`
		Reason     string `json:"reason"`
	} `json:"hook"`
	// Child: the child session of a running task call started or stopped waiting for the person.
	Child *struct {
		CallID  string `json:"call_id"`
		Waiting bool   `json:"waiting"`
	} `json:"child"`
	Tick   *struct{} `json:"tick"`
	Failed *struct {
		Err string `json:"err"`
	} `json:"failed"`
	// StorageFailed: the database failed under the run (its disk full, or an I/O error).
	StorageFailed *StorageFault `json:"storage_failed"`
}

func (st step) input(now time.Time) (Input, error) {
	switch {
	case st.Started != nil:
		rows, err := history(st.Started.History)
		if err != nil {
			return nil, err
		}
		l := st.Started.Limits
		if st.Started.Timeout != "" {
			d, err := time.ParseDuration(st.Started.Timeout)
			if err != nil {
				return nil, err
			}
			l.Timeout = d
		}
		tools := st.Started.Tools
		if tools == nil {
			tools = builtinTools
		}
		return Started{Now: now, SessionID: "s1", RunID: "r1", Model: st.Started.Model, Workspace: "/ws",
			Prompt: st.Started.Prompt, Command: st.Started.Command, AfterPrompt: hookNotes(st.Started.Notes), Limits: l, Sandbox: st.Started.Sandbox, ContextTokens: st.Started.ContextTokens, Mode: st.Started.Mode, Tools: tools,
			Approval: st.Started.Approval, Agent: st.Started.Agent, StopHook: st.Started.StopHook,
			PreCompactHook: st.Started.PreCompactHook, Depth: st.Started.Depth, TaskGranted: st.Started.TaskGranted,
			NoPerson: st.Started.NoPerson, Queued: st.Started.Queued, Rows: rows, PreviousStop: st.Started.PreviousStop, CompactThrough: st.Started.CompactThrough}, nil
	case st.Queue != nil:
		return MessageQueued{Now: now, Message: QueuedMessage{ID: st.Queue.ID, Text: st.Queue.Text, QueuedAt: now}}, nil
	case st.Withdraw != nil:
		return QueueWithdrawn{Now: now, ID: st.Withdraw.ID}, nil
	case st.Model != nil:
		r := *st.Model
		if r.Status == "" {
			r.Status = ResponseOK
		}
		return ModelResponded{Now: now, Response: r}, nil
	case st.Approve != nil:
		a := st.Approve
		return ApprovalDecided{Now: now, CallID: a.CallID, Approved: a.Approved, By: a.By, Reason: a.Reason, Arguments: a.Arguments,
			HookStop: a.HookStop}, nil
	case st.Tool != nil:
		return ToolFinished{Now: now, CallID: st.Tool.CallID, Content: st.Tool.Content, IsError: st.Tool.IsError, Sandboxed: st.Tool.Sandboxed,
			HookStop: st.Tool.HookStop}, nil
	case st.Recorded != nil:
		rows := make([]Row, len(st.Recorded))
		for i, e := range st.Recorded {
			rows[i] = hookRun{Event: e}
		}
		return Recorded{Rows: rows}, nil
	case st.Compacted != nil:
		c := st.Compacted
		return Compacted{Now: now, OK: c.OK, Summary: c.Summary, ContextTokens: c.ContextTokens, Usage: c.Usage, Err: c.Err,
			Called: c.Called == nil || *c.Called}, nil
	case st.Cancel != nil:
		return CancelRequested{Now: now, Partial: st.Cancel.Partial}, nil
	case st.Hook != nil:
		h := st.Hook
		return HookAnswered{Now: now, Stop: h.Stop, StopReason: h.StopReason, Block: h.Block, Reason: h.Reason}, nil
	case st.Child != nil:
		return ChildWaiting{Now: now, CallID: st.Child.CallID, Waiting: st.Child.Waiting}, nil
	case st.Tick != nil:
		return Ticked{Now: now}, nil
	case st.Failed != nil:
		return Failed{Now: now, Err: st.Failed.Err}, nil
	case st.StorageFailed != nil:
		return StorageFailed{Now: now, Fault: *st.StorageFailed}, nil
	}
	return nil, fmt.Errorf("step names no input")
}

// hookRun stands for the hook row a driver's extension records: opaque to the core.
type hookRun struct {
	Event string `json:"event"`
}

func (hookRun) Kind() RowKind { return "hook" }

// history reads a session's rows before a run, one word per row with seqs from 1: u (user),
// a (assistant), t (tool_result), p (approval), n (note), s<N (a summary in effect through
// N), x<A-B (an exchange A..B set aside). ":K" after a word gives the row's size in tokens
// (default 10).
func history(text string) ([]RowRef, error) {
	kinds := map[byte]RowKind{'u': KindUser, 'a': KindAssistant, 't': KindToolResult, 'p': KindApproval, 'n': "note", 's': KindSummary, 'x': KindSummary}
	var rows []RowRef
	for i, w := range strings.Fields(text) {
		r := RowRef{Seq: int64(i + 1), Kind: kinds[w[0]], Tokens: 10}
		w, tokens, sized := strings.Cut(w, ":")
		if sized {
			if _, err := fmt.Sscan(tokens, &r.Tokens); err != nil {
				return nil, fmt.Errorf("history word %q: %v", w, err)
			}
		}
		var err error
		switch w[0] {
		case 's':
			_, err = fmt.Sscanf(w, "s<%d", &r.ThroughSeq)
		case 'x':
			_, err = fmt.Sscanf(w, "x<%d-%d", &r.FromSeq, &r.ThroughSeq)
		}
		if r.Kind == "" || err != nil {
			return nil, fmt.Errorf("history word %q: %v", w, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// builtinTools are the tools a transcript's run offers unless it names its own: Loopdesk's
// built-in tools with their read-only flags.
var builtinTools = []ToolInfo{
	{Name: "read_file", ReadOnly: true}, {Name: "list_dir", ReadOnly: true}, {Name: "find_files", ReadOnly: true},
	{Name: "search_text", ReadOnly: true}, {Name: "write_file"}, {Name: "edit_file"}, {Name: "run_shell_command"},
}

// formatEffect prints one effect on one line, stable across runs.
func formatEffect(e Effect) string {
	j := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return "!" + err.Error()
		}
		return string(b)
	}
	switch e := e.(type) {
	case CallModel:
		return fmt.Sprintf("call_model turn=%d", e.Turn)
	case RequestApproval:
		if len(e.Modes) > 0 {
			return "request_approval " + j(e.Calls) + " modes=" + j(e.Modes)
		}
		return "request_approval " + j(e.Calls)
	case RunTools:
		if e.Child != nil {
			return "run_tools " + j(e.Batches) + " child=" + j(e.Child)
		}
		return "run_tools " + j(e.Batches)
	case Compact:
		if e.ThroughSeq > 0 {
			return fmt.Sprintf("compact keep_turns=%d emergency=%v through_seq=%d", e.KeepTurns, e.Emergency, e.ThroughSeq)
		}
		return fmt.Sprintf("compact keep_turns=%d emergency=%v", e.KeepTurns, e.Emergency)
	case FireHook:
		if e.Trigger != "" {
			return fmt.Sprintf("fire_hook event=%s trigger=%s", e.Event, e.Trigger)
		}
		return fmt.Sprintf("fire_hook event=%s active=%v", e.Event, e.Active)
	case Persist:
		var parts []string
		for _, r := range e.Rows {
			parts = append(parts, string(r.Kind())+" "+j(r))
		}
		return "persist " + strings.Join(parts, " | ")
	case Emit:
		return "emit " + string(e.Payload.Type()) + " " + j(e.Payload)
	case Done:
		return "done " + j(e.Result)
	}
	return fmt.Sprintf("unknown effect %T", e)
}

// checkPairing is the core's main invariant, checked on every transcript: each call in a
// persisted assistant turn gets exactly one persisted result before the model is called again
// or the run ends, and no result exists for a call that was never made.
type pairing struct {
	open map[string]bool
	done map[string]int
}

func (p *pairing) effect(e Effect) error {
	if p.open == nil {
		p.open, p.done = map[string]bool{}, map[string]int{}
	}
	switch e := e.(type) {
	case Persist:
		for _, r := range e.Rows {
			switch r := r.(type) {
			case AssistantRow:
				if len(p.open) > 0 {
					return fmt.Errorf("assistant turn persisted while calls %v are unanswered", keys(p.open))
				}
				for _, c := range r.ToolCalls {
					p.open[c.ID] = true
				}
			case ToolResultRow:
				if !p.open[r.CallID] {
					return fmt.Errorf("result for call %s that is not open (results so far: %d)", r.CallID, p.done[r.CallID])
				}
				delete(p.open, r.CallID)
				p.done[r.CallID]++
			}
		}
	case CallModel, Done:
		if len(p.open) > 0 {
			return fmt.Errorf("%s while calls %v are unanswered", formatEffect(e), keys(p.open))
		}
	}
	return nil
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// runTranscript feeds a transcript to Next and returns the golden text and the final state.
func runTranscript(t *testing.T, src []byte) (string, State) {
	t.Helper()
	var (
		golden bytes.Buffer
		s      State
		p      pairing
		now    = t0
		seq    int64 // the last seq the store gave
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			golden.WriteString(sc.Text() + "\n")
			continue
		}
		var st step
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&st); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		now = now.Add(time.Second)
		if st.At != "" {
			d, err := time.ParseDuration(st.At)
			if err != nil {
				t.Fatalf("line %d: at: %v", line, err)
			}
			now = t0.Add(d)
		}
		in, err := st.input(now)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		fmt.Fprintf(&golden, "> %s\n", text)
		if _, ok := in.(Started); ok {
			seq = int64(len(in.(Started).Rows))
		}
		next, effects, err := Next(s, in)
		if err != nil {
			fmt.Fprintf(&golden, "  error: %v\n", err)
			if next.Phase != s.Phase {
				t.Errorf("line %d: rejected input changed the phase from %s to %s", line, s.Phase, next.Phase)
			}
			continue
		}
		s = next
		for _, e := range effects {
			fmt.Fprintf(&golden, "  %s\n", formatEffect(e))
			if err := p.effect(e); err != nil {
				t.Errorf("line %d: invariant broken: %v", line, err)
			}
		}
		s, seq = store(t, &golden, s, effects, seq)
		fmt.Fprintf(&golden, "  = phase %s\n", s.Phase)
	}
	return golden.String(), s
}

// store plays the driver's part of the store: each persisted row gets the next seq, and the
// core hears of them with Stored before the next input, as the runner does.
func store(t *testing.T, golden *bytes.Buffer, s State, effects []Effect, seq int64) (State, int64) {
	t.Helper()
	var rows []RowRef
	for _, e := range effects {
		p, ok := e.(Persist)
		if !ok {
			continue
		}
		for _, r := range p.Rows {
			seq++
			ref := RowRef{Seq: seq, Kind: r.Kind(), Tokens: 10}
			if sum, ok := r.(SummaryRow); ok {
				ref.FromSeq, ref.ThroughSeq = sum.FromSeq, sum.ThroughSeq
			}
			rows = append(rows, ref)
		}
	}
	if len(rows) == 0 || s.Phase == PhaseDone {
		return s, seq
	}
	next, effects, err := Next(s, Stored{Rows: rows})
	if err != nil || len(effects) > 0 {
		t.Fatalf("stored rows %d-%d: %v, effects %v", rows[0].Seq, seq, err, effects)
	}
	fmt.Fprintf(golden, "  stored %d-%d\n", rows[0].Seq, seq)
	return next, seq
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, final := runTranscript(t, src)
			goldenPath := strings.TrimSuffix(f, ".jsonl") + ".golden"
			if *update {
				if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("transcript differs from %s (run with -update after checking):\n%s", goldenPath, diffLines(string(want), got))
			}
			// The file name says how the run must end: NAME__STATUS.jsonl.
			if i := strings.Index(name, "__"); i >= 0 {
				wantStatus := StopReason(name[i+2:])
				if final.Result() == nil || final.Result().Status != wantStatus {
					t.Errorf("run ended %+v, want status %s", final.Result(), wantStatus)
				}
			}
		})
	}
}

func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// hookNotes are texts as the hook's note rows (Started.AfterPrompt).
func hookNotes(texts []string) []Row {
	var rows []Row
	for _, t := range texts {
		rows = append(rows, NoteRow{Source: NoteSourceHook, Text: t})
	}
	return rows
}
