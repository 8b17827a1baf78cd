package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestRunsAudit(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	s := mustSession(t, db, "s")
	run, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Model: "gpt-x", SystemPromptHash: "abc",
		Limits: json.RawMessage(`{"max_turns":8,"max_cost":0.5}`)})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != store.RunRunning || !run.EndedAt.IsZero() {
		t.Fatalf("started run: %+v", run)
	}
	if _, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID}); !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("second concurrent run: want ErrSessionBusy, got %v", err)
	}
	turn := store.AssistantPayload{ToolCalls: []store.ToolCall{call("c1", "run_shell_command", `{"command":"make"}`)},
		Usage: &store.Usage{InputTokens: 100, OutputTokens: 20, CostUSD: 0.01}}
	mustAppend(t, db, s.ID, run.ID, user("go"), store.NewChunk{Kind: store.KindAssistant, Payload: turn})
	// The spend is on the run the moment the row is: a kill here loses nothing.
	if runs, _ := db.ListRuns(ctx, s.ID); runs[0].Turns != 1 || runs[0].InputTokens != 100 || runs[0].CostUSD != 0.01 {
		t.Fatalf("running run's counters after its first turn: %+v", runs[0].Counters)
	}
	fin, added, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "cancelled", Output: "partial"})
	if err != nil {
		t.Fatal(err)
	}
	// The cancelled run left c1 unanswered: finishing answers it, visibly.
	if len(added) != 1 || added[0].Seq != 3 || !strings.Contains(string(added[0].Payload), `"is_error":true`) {
		t.Fatalf("finish did not answer the pending call: %+v", added)
	}
	if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("finishing twice: %v", err)
	}
	if _, _, err := db.FinishRun(ctx, "nope", store.RunResult{Status: "completed"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("finishing an unknown run: %v", err)
	}
	db.Close()
	db = openPath(t, path)
	runs, err := db.ListRuns(ctx, s.ID)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	r := runs[0]
	if r.Status != "cancelled" || r.Output != "partial" || r.Turns != 1 || r.ToolCalls != 1 || r.InputTokens != 100 ||
		r.OutputTokens != 20 || r.CostUSD != 0.01 || r.Model != "gpt-x" || r.SystemPromptHash != "abc" ||
		r.EndedAt.Before(r.StartedAt) || r.EndedAt.IsZero() || !fin.EndedAt.Equal(r.EndedAt) {
		t.Fatalf("stored run: %+v", r)
	}
	var b map[string]float64
	if err := json.Unmarshal(r.Limits, &b); err != nil || b["max_turns"] != 8 {
		t.Fatalf("budgets: %s %v", r.Limits, err)
	}
	js, _ := json.Marshal(r)
	for _, k := range []string{`"run_id"`, `"session_id"`, `"status"`, `"output"`, `"turns"`, `"tool_calls"`, `"input_tokens"`,
		`"output_tokens"`, `"cost_usd"`, `"started_at"`, `"ended_at"`, `"error"`, `"model"`, `"system_prompt_hash"`, `"budgets"`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("run JSON lacks %s: %s", k, js)
		}
	}
	// A new run may start once the last ended.
	if _, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID}); err != nil {
		t.Fatal(err)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestRepairOnOpen(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	crashed := mustSession(t, db, "crashed")
	clean := mustSession(t, db, "clean")
	conversation(t, db, clean.ID)
	run, err := db.StartRun(ctx, store.NewRun{SessionID: crashed.ID, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, db, crashed.ID, run.ID, user("build it"),
		assistant("", call("a", "run_shell_command", `{"command":"make"}`), call("b", "read_file", `{"path":"x"}`)))
	mustAppend(t, db, crashed.ID, run.ID, result("a", "run_shell_command", "ok"))

	// While the process that started the run is alive, another open (the
	// CLI next to the running app) must not touch the session.
	other := openPath(t, path)
	if len(other.Repaired.Sessions) != 0 {
		t.Fatalf("repaired a live session: %+v", other.Repaired)
	}
	other.Close()

	// Simulate the crash: the run's process is gone.
	before := messagesOf(t, db, clean.ID)
	db.Close()
	raw := openPath(t, path)
	if _, err := raw.SQL().Exec(`UPDATE runs SET pid = ? WHERE id = ?`, deadPID(t), run.ID); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db = openPath(t, path)
	if len(db.Repaired.Sessions) != 1 || db.Repaired.Sessions[0] != crashed.ID || db.Repaired.Results != 1 ||
		len(db.Repaired.Runs) != 1 || db.Repaired.Runs[0] != run.ID {
		t.Fatalf("repair report: %+v", db.Repaired)
	}
	rows, _ := db.Chunks(ctx, crashed.ID)
	if len(rows) != 4 {
		t.Fatalf("want 3 rows + 1 synthesized, got %d", len(rows))
	}
	var tr store.ToolResultPayload
	json.Unmarshal(rows[3].Payload, &tr)
	if rows[3].Kind != store.KindToolResult || tr.CallID != "b" || tr.Name != "read_file" || !tr.IsError ||
		!strings.HasPrefix(tr.Content, store.Interrupted) || rows[3].RunID != run.ID {
		t.Fatalf("synthesized row: %+v %+v", rows[3], tr)
	}
	// The session is valid for the next request: a user row is accepted
	// and the messages pair every call with a result.
	mustAppend(t, db, crashed.ID, "", user("what happened?"))
	ms := messagesOf(t, db, crashed.ID)
	if len(ms) != 5 || !strings.Contains(string(ms[3]), `"tool_call_id":"b"`) {
		t.Fatalf("messages after repair: %s", ms)
	}
	r, _ := db.GetRun(ctx, run.ID)
	if r.Status != store.RunInterrupted || r.EndedAt.IsZero() || r.Error == "" {
		t.Fatalf("run after repair: %+v", r)
	}
	// Untouched sessions stay byte-identical; a second open repairs nothing.
	after := messagesOf(t, db, clean.ID)
	if len(after) != len(before) {
		t.Fatal("repair changed a clean session")
	}
	samePrefix(t, "clean session after repair", toBytes(before), toBytes(after))
	db.Close()
	if again := openPath(t, path); again.Repaired.Results != 0 || len(again.Repaired.Runs) != 0 {
		t.Fatalf("second repair did something: %+v", again.Repaired)
	}
}

func TestRules(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	r1, err := db.AddRule(ctx, store.NewRule{Tool: "run_shell_command", Pattern: "git status*", Effect: store.EffectAllow, Scope: store.ScopeSession, ScopeID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddRule(ctx, store.NewRule{Tool: "write_file", Effect: store.EffectDeny, Scope: store.ScopeWorkspace, ScopeID: "/w"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddRule(ctx, store.NewRule{Tool: "write_file", Effect: store.EffectAllow, Scope: store.ScopeWorkspace, ScopeID: "/elsewhere"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []store.NewRule{
		{Tool: "x", Effect: "maybe", Scope: store.ScopeWorkspace, ScopeID: "/w"},
		{Tool: "x", Effect: store.EffectAllow, Scope: "global", ScopeID: "/w"},
		{Tool: "", Effect: store.EffectAllow, Scope: store.ScopeWorkspace, ScopeID: "/w"},
	} {
		if _, err := db.AddRule(ctx, bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("rule %+v: want ErrInvalid, got %v", bad, err)
		}
	}
	if _, err := db.AddRule(ctx, store.NewRule{Tool: "x", Effect: store.EffectAllow, Scope: store.ScopeSession, ScopeID: "missing"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rule for a missing session: %v", err)
	}
	rules, err := db.ListRules(ctx, s.ID, "/w")
	if err != nil || len(rules) != 2 || rules[0].ID != r1.ID || rules[1].Effect != store.EffectDeny {
		t.Fatalf("rules for the session: %+v %v", rules, err)
	}
	// A fork inherits the session's rules; deleting the session drops its own.
	f, err := db.Fork(ctx, s.ID, 1)
	if err == nil {
		t.Fatalf("fork of an empty session should fail, got %+v", f)
	}
	mustAppend(t, db, s.ID, "", user("hi"))
	f, err = db.Fork(ctx, s.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fr, _ := db.ListRules(ctx, f.ID, ""); len(fr) != 1 || fr[0].Pattern != "git status*" || fr[0].ID == r1.ID {
		t.Fatalf("fork rules: %+v", fr)
	}
	if err := db.DeleteRule(ctx, r1.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteRule(ctx, r1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if rules, _ := db.ListRules(ctx, s.ID, "/w"); len(rules) != 1 {
		t.Fatalf("after delete: %+v", rules)
	}
}

func TestLastRunIsTheLatest(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "runs")
	if _, ok, err := db.LastRun(ctx, s.ID); ok || err != nil {
		t.Fatalf("a session without runs: %v %v", ok, err)
	}
	var ids []string
	for range 3 {
		run, _, err := db.StartRunWith(ctx, store.NewRun{SessionID: s.ID, Model: "m", Limits: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.ID)
	}
	last, ok, err := db.LastRun(ctx, s.ID)
	if err != nil || !ok || last.ID != ids[2] || last.Status != "completed" {
		t.Fatalf("last run %+v %v %v, want %s", last, ok, err, ids[2])
	}
}
