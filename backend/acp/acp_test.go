package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func write(path, content string) fakeai.Call {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return fakeai.Call{Name: "write_file", Arguments: string(b)}
}

func shell(cmd string) fakeai.Call {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return fakeai.Call{Name: "run_shell_command", Arguments: string(b)}
}

// A person in an editor: three prompts, each writing a file. The first call is allowed once,
// the second always (which saves the rule the option named), the third asks no more. Chunks
// stream in order, each change arrives as a diff, and everything is in the journal with
// "by": "person:acp". Bad requests get JSON-RPC errors and the agent goes on.
func TestPromptsApprovalsAndDiffs(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(
		fakeai.ToolCalls(write("hello.txt", "hi\n")), fakeai.Text("Wrote it.").WithReasoning("Writing a greeting."),
		fakeai.ToolCalls(write("hello.txt", "hello\n")), fakeai.Text("Changed it."),
		fakeai.ToolCalls(write("hello.txt", "bye\n")), fakeai.Text("Third time."),
	)
	p := e.start(plan{Answers: []string{"allow_once", "allow_always"}, Steps: []step{
		{"op": "initialize"},
		{"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "write a greeting"},
		{"op": "prompt", "text": "change it"},
		{"op": "prompt", "text": "once more"},
		{"op": "request", "method": "session/prompt", "params": map[string]any{"sessionId": "no-such-session", "prompt": []any{map[string]any{"type": "text", "text": "hi"}}}},
		{"op": "request", "method": "loopdesk/no_such_method", "params": map[string]any{}},
		{"op": "mode", "modeId": "yolo"},
	}}, "--approve", "ask")
	evs := p.finish()
	res := results(evs)
	if len(res) != 8 {
		t.Fatalf("want 8 step outcomes, got %d:\n%s", len(res), dump(evs))
	}
	var init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
		AgentInfo struct{ Name string } `json:"agentInfo"`
	}
	_ = json.Unmarshal(res[0].Result, &init)
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || init.AgentInfo.Name != "loopdesk" {
		t.Errorf("initialize answered %s", res[0].Result)
	}
	var created struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID  string                `json:"currentModeId"`
			AvailableModes []struct{ ID string } `json:"availableModes"`
		} `json:"modes"`
	}
	_ = json.Unmarshal(res[1].Result, &created)
	if created.SessionID == "" || created.Modes.CurrentModeID != "execute" || len(created.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new answered %s", res[1].Result)
	}
	for i := 2; i <= 4; i++ {
		if got := stopReason(t, res[i]); got != "end_turn" {
			t.Errorf("prompt %d stopped with %q", i-1, got)
		}
		var meta struct {
			Meta struct {
				Loopdesk struct {
					RunID     string `json:"runId"`
					Status    string `json:"status"`
					ToolCalls int    `json:"toolCalls"`
				} `json:"loopdesk"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(res[i].Result, &meta)
		if m := meta.Meta.Loopdesk; m.RunID == "" || m.Status != "completed" || m.ToolCalls != 1 {
			t.Errorf("prompt %d's _meta.loopdesk: %s", i-1, res[i].Result)
		}
	}
	checkFirstPrompt(t, e, updatesOf(evs, 2))
	checkSecondDiff(t, e, updatesOf(evs, 3))
	checkPermissions(t, evs)
	for i, want := range map[int]int{5: -32002, 6: -32601, 7: -32602} {
		if res[i].Ev != "error" || res[i].Code != want {
			t.Errorf("step %d (%s): want error %d, got %+v", i, res[i].Op, want, res[i])
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "hello.txt")); string(b) != "bye\n" {
		t.Errorf("hello.txt holds %q after the third prompt", b)
	}
	checkJournal(t, e, created.SessionID)
}

// checkFirstPrompt: the call is announced, runs, finishes with its diff, then the thought
// and the answer stream.
func checkFirstPrompt(t *testing.T, e *env, us []update) {
	t.Helper()
	var seq []string
	var message, thought string
	for _, u := range us {
		switch u.SessionUpdate {
		case "tool_call":
			seq = append(seq, "tool_call:"+u.Status)
			if u.Kind != "edit" || len(u.Locations) != 1 || u.Locations[0].Path != filepath.Join(e.ws, "hello.txt") {
				t.Errorf("tool_call kind %q locations %+v", u.Kind, u.Locations)
			}
		case "tool_call_update":
			d := u.diffs()
			if u.Status != "" {
				seq = append(seq, "update:"+u.Status)
			} else if len(d) > 0 {
				seq = append(seq, "diff")
			}
			// content replaces the call's content: the diff stays on every later update.
			if len(d) > 0 && (d[0].Path != filepath.Join(e.ws, "hello.txt") || d[0].NewText != "hi\n" || d[0].OldText != nil) {
				t.Errorf("diff of a new file: %+v", d[0])
			}
			if u.Status == "completed" && len(d) != 1 {
				t.Errorf("the completed call's content lost its diff: %s", u.Content)
			}
		case "agent_thought_chunk":
			thought += u.text()
			if len(seq) == 0 || seq[len(seq)-1] != "thought" {
				seq = append(seq, "thought")
			}
		case "agent_message_chunk":
			message += u.text()
			if len(seq) == 0 || seq[len(seq)-1] != "message" {
				seq = append(seq, "message")
			}
		}
	}
	want := "tool_call:pending update:in_progress diff update:completed thought message"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("updates of the first prompt:\n got %s\nwant %s", got, want)
	}
	if message != "Wrote it." || thought != "Writing a greeting." {
		t.Errorf("message %q thought %q", message, thought)
	}
}

func checkSecondDiff(t *testing.T, e *env, us []update) {
	t.Helper()
	for _, u := range us {
		if d := u.diffs(); len(d) > 0 {
			if d[0].OldText == nil || *d[0].OldText != "hi\n" || d[0].NewText != "hello\n" {
				t.Errorf("diff of the second change: %+v", d[0])
			}
			return
		}
	}
	t.Errorf("the second prompt sent no diff: %+v", us)
}

// checkPermissions: asked twice (the third call matched the saved rule), with the four
// options, the "always" ones naming tool, pattern and scope.
func checkPermissions(t *testing.T, evs []event) {
	t.Helper()
	var asked []event
	for _, ev := range evs {
		if ev.Ev == "permission" {
			asked = append(asked, ev)
		}
	}
	if len(asked) != 2 {
		t.Fatalf("want 2 permission requests (the third call is allowed by the saved rule), got %d", len(asked))
	}
	kinds := map[string]string{}
	for _, o := range asked[0].Options {
		kinds[o.Kind] = o.Name
		if o.OptionID != o.Kind {
			t.Errorf("option %q has kind %q", o.OptionID, o.Kind)
		}
	}
	if len(kinds) != 4 || kinds["allow_once"] == "" || kinds["reject_once"] == "" {
		t.Errorf("options %+v", asked[0].Options)
	}
	if want := `Always allow write_file calls matching "hello.txt" in this session`; kinds["allow_always"] != want {
		t.Errorf("allow_always is named %q, want %q", kinds["allow_always"], want)
	}
	if want := `Always reject write_file calls matching "hello.txt" in this session`; kinds["reject_always"] != want {
		t.Errorf("reject_always is named %q, want %q", kinds["reject_always"], want)
	}
	if asked[0].ToolCall.Kind != "edit" || asked[0].ToolCall.Title != "Write hello.txt" {
		t.Errorf("the permission request shows %+v", asked[0].ToolCall)
	}
}

// checkJournal: an ordinary session with approvals by person:acp and the rule saved.
func checkJournal(t *testing.T, e *env, sessionID string) {
	t.Helper()
	db := e.openDB()
	ctx := context.Background()
	s, err := db.GetSession(ctx, sessionID)
	if err != nil {
		t.Fatalf("the ACP session is not in the database: %v", err)
	}
	if s.Workspace != e.ws || s.Title == "New session" {
		t.Errorf("session %+v", s)
	}
	rows, err := db.Chunks(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var by, saved []string
	for _, r := range rows {
		if r.Kind == store.KindApproval {
			var a store.ApprovalPayload
			_ = json.Unmarshal(r.Payload, &a)
			by = append(by, string(a.Decision)+" "+strings.SplitN(a.By, ":", 2)[0]+":"+map[bool]string{true: "acp", false: "rule"}[a.By == "person:acp"])
			saved = append(saved, a.Rule)
		}
	}
	if got := strings.Join(by, ", "); got != "approved person:acp, approved person:acp, approved rule:rule" {
		t.Errorf("approvals: %s", got)
	}
	// allow_always's answer carries the rule it saved, as a rule rather than as a reason.
	if got := strings.Join(saved, "|"); got != "|allow write_file hello.txt in this session|" {
		t.Errorf("rules saved by the approvals: %q", got)
	}
	rules, err := db.ListRules(ctx, sessionID, e.ws)
	if err != nil || len(rules) != 1 || rules[0].Tool != "write_file" || rules[0].Pattern != "hello.txt" ||
		rules[0].Effect != store.EffectAllow || rules[0].Scope != store.ScopeSession {
		t.Errorf("rules %+v (%v)", rules, err)
	}
}

// Cancel mid-tool: the command's output shows while it runs; the command is stopped, the
// prompt ends "cancelled", and the journal has the call's result and a cancelled run, as
// after Stop in the window.
func TestCancelMidTool(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(shell("echo warming up; sleep 30")))
	p := e.start(plan{Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "wait a while", "cancelOn": "text:warming up"},
	}}, "--approve", "auto")
	began := time.Now()
	evs := p.finish()
	if d := time.Since(began); d > 20*time.Second {
		t.Errorf("cancel took %v", d)
	}
	res := results(evs)
	if got := stopReason(t, res[2]); got != "cancelled" {
		t.Fatalf("stopReason %q", got)
	}
	var last update
	for _, u := range updatesOf(evs, 2) {
		if u.SessionUpdate == "tool_call_update" && u.Status != "" {
			last = u
		}
	}
	if last.Status != "failed" {
		t.Errorf("the cancelled call ended %q", last.Status)
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res[1].Result, &sid)
	checkCancelledRun(t, e, sid.SessionID)
}

// checkCancelledRun: the run is cancelled and its call answered.
func checkCancelledRun(t *testing.T, e *env, sessionID string) {
	t.Helper()
	db := e.openDB()
	ctx := context.Background()
	runs, err := db.ListRuns(ctx, sessionID)
	if err != nil || len(runs) != 1 || runs[0].Status != store.RunStatus("cancelled") {
		t.Fatalf("runs %+v (%v)", runs, err)
	}
	rows, _ := db.Chunks(ctx, sessionID)
	results := 0
	for _, r := range rows {
		if r.Kind == store.KindToolResult {
			results++
		}
	}
	if results != 1 {
		t.Errorf("want the call's one result in the journal, got %d rows of results", results)
	}
}

// reject_always saves the deny rule its name gives; the same call is then denied by that rule
// without asking, and the model hears each denial.
func TestRejectAlways(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(shell("rm -rf build")), fakeai.Text("Fine."),
		fakeai.ToolCalls(shell("rm -rf build")), fakeai.Text("Still fine."))
	p := e.start(plan{Answers: []string{"reject_always", "allow_once"}, Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "clean up"}, {"op": "prompt", "text": "clean up again"},
	}}, "--approve", "ask")
	evs := p.finish()
	var asked []string
	for _, ev := range evs {
		if ev.Ev == "permission" {
			for _, o := range ev.Options {
				if o.Kind == "reject_always" {
					asked = append(asked, o.Name)
				}
			}
		}
	}
	if len(asked) != 1 || asked[0] != `Always reject run_shell_command calls matching "rm -rf build" in this session` {
		t.Fatalf("asked %q; want one request naming the rule", asked)
	}
	for _, n := range []int{2, 3} {
		var status string
		for _, u := range updatesOf(evs, n) {
			if u.SessionUpdate == "tool_call_update" && u.Status != "" {
				status = u.Status
			}
		}
		if status != "failed" {
			t.Errorf("prompt %d: the denied call ended %q", n-1, status)
		}
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(results(evs)[1].Result, &sid)
	db := e.openDB()
	rules, _ := db.ListRules(context.Background(), sid.SessionID, e.ws)
	if len(rules) != 1 || rules[0].Effect != store.EffectDeny || rules[0].Pattern != "rm -rf build" {
		t.Errorf("rules %+v", rules)
	}
	rows, _ := db.Chunks(context.Background(), sid.SessionID)
	var by []string
	for _, r := range rows {
		if r.Kind == store.KindApproval {
			var a store.ApprovalPayload
			_ = json.Unmarshal(r.Payload, &a)
			by = append(by, string(a.Decision)+" "+strings.SplitN(a.By, ":", 2)[0])
		}
	}
	if strings.Join(by, ", ") != "denied person, denied rule" {
		t.Errorf("approvals %q", by)
	}
}

// A client that answers the permission request with an error: the call is denied (fail
// closed), recorded as an error rather than as the person's answer, and the run goes on.
func TestPermissionAnsweredWithError(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(write("z.txt", "z")), fakeai.Text("Could not write."))
	p := e.start(plan{Answers: []string{"throw"}, Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "write z"},
	}}, "--approve", "ask")
	evs := p.finish()
	res := results(evs)
	if got := stopReason(t, res[2]); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "z.txt")); !os.IsNotExist(err) {
		t.Errorf("the call ran though nobody approved it: %v", err)
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res[1].Result, &sid)
	rows, _ := e.openDB().Chunks(context.Background(), sid.SessionID)
	var found bool
	for _, r := range rows {
		if r.Kind == store.KindApproval {
			var a store.ApprovalPayload
			_ = json.Unmarshal(r.Payload, &a)
			found = a.Decision == store.DecisionDenied && a.By == "error" && strings.Contains(a.Reason, "could not ask")
		}
	}
	if !found {
		t.Errorf("no denial by error in the journal")
	}
}
