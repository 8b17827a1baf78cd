package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A session made by `loopdesk run` loads in the editor: its rows come back as updates (the
// prompt, the call with its final status and diff, the answer), then it takes a new prompt.
func TestLoadReplaysSessionFromCLI(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(write("notes.md", "# Notes\n")), fakeai.Text("All done."))
	out, code := e.runCLI(append(e.flags("--approve", "auto", "--json", "--workspace", e.ws), "start the notes")...)
	if code != 0 {
		t.Fatalf("loopdesk run exited %d", code)
	}
	var first struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first)
	if first.SessionID == "" {
		t.Fatalf("no session id in %q", out)
	}
	e.srv.Enqueue(fakeai.Text("Loaded and continued."))
	p := e.start(plan{Steps: []step{
		{"op": "initialize"},
		{"op": "load", "sessionId": first.SessionID, "cwd": e.ws},
		{"op": "prompt", "text": "and now?"},
	}}, "--approve", "auto")
	evs := p.finish()
	res := results(evs)
	if res[1].Ev != "result" || stopReason(t, res[2]) != "end_turn" {
		t.Fatalf("load then prompt: %s", dump(res))
	}
	var got []string
	for _, u := range updatesOf(evs, 1) {
		switch u.SessionUpdate {
		case "user_message_chunk", "agent_message_chunk":
			got = append(got, u.SessionUpdate+":"+u.text())
		case "tool_call":
			got = append(got, "tool_call:"+u.Kind+":"+u.Title)
		case "tool_call_update":
			s := "tool_call_update:" + u.Status
			for _, d := range u.diffs() {
				s += ":diff " + strings.TrimPrefix(d.Path, e.ws+"/") + " " + d.NewText
			}
			got = append(got, s)
		}
	}
	want := []string{"user_message_chunk:start the notes", "tool_call:edit:Write notes.md",
		"tool_call_update:completed", "tool_call_update::diff notes.md # Notes\n", "agent_message_chunk:All done."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("replayed updates:\n got %q\nwant %q", got, want)
	}
	db := e.openDB()
	runs, _ := db.ListRuns(context.Background(), first.SessionID)
	if len(runs) != 2 {
		t.Errorf("the loaded session should have the CLI's run and the editor's: %d runs", len(runs))
	}
}

// The client is killed mid-run: the agent cancels the run, repairs nothing by force (every
// call is answered as after Stop), exits by itself, and the CLI continues the session.
func TestClientKilledMidRunThenCLIContinues(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(shell("sleep 30")))
	p := e.start(plan{Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "take your time"},
	}}, "--approve", "auto")
	evs := p.waitFor("the command running", func(ev event) bool {
		return ev.Ev == "update" && ev.Update.SessionUpdate == "tool_call_update" && ev.Update.Status == "in_progress"
	})
	_ = p.client.Process.Signal(syscall.SIGKILL)
	select {
	case err := <-p.agentDone:
		p.agentDone <- err
		if err != nil {
			t.Errorf("the agent exited with %v after its client died", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent kept running 30s after its client died")
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(results(evs)[1].Result, &sid)
	checkCancelledRun(t, e, sid.SessionID)
	e.srv.Enqueue(fakeai.Text("Picked up from the CLI."))
	if _, code := e.runCLI(append(e.flags("--approve", "auto", "--session", sid.SessionID), "carry on")...); code != 0 {
		t.Fatalf("loopdesk run --session exited %d", code)
	}
	rows, _ := e.openDB().Chunks(context.Background(), sid.SessionID)
	var last store.AssistantPayload
	_ = json.Unmarshal(rows[len(rows)-1].Payload, &last)
	if last.Text != "Picked up from the CLI." {
		t.Errorf("the session's last row is %s %s", rows[len(rows)-1].Kind, rows[len(rows)-1].Payload)
	}
}

// A permission request the client never answers: the time waiting for the person is not the
// run's time, so the run's time bound (2 s here) does not end it while it waits; the editor's
// session/cancel does, the prompt returns "cancelled" and the call is answered in the journal.
func TestPermissionNeverAnswered(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(write("x.txt", "x")))
	p := e.start(plan{Answers: []string{"never"}, Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "write x", "async": true},
		{"op": "waitPermission"}, {"op": "pause", "ms": 3000}, {"op": "cancel"}, {"op": "settle"},
	}}, "--approve", "ask", "--timeout", "2s")
	evs := p.finish()
	var prompt *event
	for i, ev := range evs {
		if ev.Ev == "result" && ev.Op == "prompt" && !strings.Contains(string(ev.Result), `"sent"`) {
			prompt = &evs[i]
		}
	}
	if prompt == nil {
		t.Fatalf("the prompt never returned: %+v", evs)
	}
	if got := stopReason(t, *prompt); got != "cancelled" {
		t.Errorf("stopReason %q, want cancelled: the wait for the person is not the run's time", got)
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(results(evs)[1].Result, &sid)
	checkCancelledRun(t, e, sid.SessionID)
}

// Lines that are not JSON-RPC requests get the JSON-RPC error a client can show (the Go SDK
// alone would log them and answer nothing), and the agent keeps serving.
func TestMalformedLinesAnswered(t *testing.T) {
	e := newEnv(t)
	cmd := exec.Command(loopdeskBin, append([]string{"acp"}, e.flags()...)...)
	cmd.Env, cmd.Dir = e.environ(), e.ws
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outPipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	cases := []struct {
		send, wantID string
		wantCode     int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, "null", -32700},
		{`not json at all`, "null", -32700},
		{`[{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}]`, "null", -32600},
		{`{"jsonrpc":"2.0","id":3}`, "3", -32600},
		{`{"jsonrpc":"2.0","id":4,"method":7}`, "4", -32600},
		{`{"jsonrpc":"2.0","id":5,"method":"no/such_method","params":{}}`, "5", -32601},
		{`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, "6", -32002},
		{`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`, "7", -32602},
	}
	for _, c := range cases {
		if _, err := io.WriteString(in, c.send+"\n"); err != nil {
			t.Fatal(err)
		}
		line := next(t, lines)
		var r struct {
			ID    json.RawMessage    `json:"id"`
			Error struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || string(r.ID) != c.wantID || r.Error.Code != c.wantCode {
			t.Errorf("sent %s\n got %s\nwant id %s code %d", c.send, line, c.wantID, c.wantCode)
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	if line := next(t, lines); !strings.Contains(line, `"id":9`) || !strings.Contains(line, `"loadSession":true`) {
		t.Errorf("after the bad lines, initialize answered %s", line)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the agent exited with %v when its stdin closed", err)
	}
}

func next(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the agent closed stdout")
		}
		return l
	case <-time.After(20 * time.Second):
		t.Fatal("no answer in 20s")
	}
	return ""
}

// The client dies while a permission request waits: the run is cancelled (not denied in the
// person's name) and the agent exits.
func TestClientKilledDuringPermission(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(write("y.txt", "y")))
	p := e.start(plan{Answers: []string{"never"}, Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "write y"},
	}}, "--approve", "ask")
	evs := p.waitFor("the permission request", func(ev event) bool { return ev.Ev == "permission" })
	_ = p.client.Process.Signal(syscall.SIGKILL)
	select {
	case err := <-p.agentDone:
		p.agentDone <- err
	case <-time.After(30 * time.Second):
		t.Fatal("the agent kept running 30s after its client died")
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(results(evs)[1].Result, &sid)
	checkCancelledRun(t, e, sid.SessionID)
	rows, _ := e.openDB().Chunks(context.Background(), sid.SessionID)
	for _, r := range rows {
		if r.Kind == store.KindApproval && strings.Contains(string(r.Payload), "person:acp") {
			t.Errorf("a call was decided in the person's name after the editor died: %s", r.Payload)
		}
	}
}

// Bounds and model errors reach the editor as the nearest stop reason plus a last message with
// Loopdesk's own status (docs/acp.md's table), through the real process.
func TestStopReasonsEndToEnd(t *testing.T) {
	cases := []struct {
		name, want, status string
		replies            []fakeai.Reply
		flags              []string
	}{
		{"max turns", "max_turn_requests", "max_turns",
			[]fakeai.Reply{fakeai.ToolCalls(shell("true")), fakeai.Text("never sent")}, []string{"--max-turns", "1"}},
		{"provider error", "end_turn", "provider_error",
			[]fakeai.Reply{fakeai.HTTPError(400, `{"error":{"message":"model not found"}}`)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.srv.Enqueue(c.replies...)
			p := e.start(plan{Steps: []step{{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "go"}}},
				append([]string{"--approve", "auto"}, c.flags...)...)
			evs := p.finish()
			res := results(evs)
			if got := stopReason(t, res[2]); got != c.want {
				t.Errorf("stopReason %q, want %q", got, c.want)
			}
			var msg string
			for _, u := range updatesOf(evs, 2) {
				if u.SessionUpdate == "agent_message_chunk" {
					msg += u.text()
				}
			}
			if !strings.Contains(msg, "[Loopdesk stopped the run: "+c.status) {
				t.Errorf("last message %q does not give the status %s", msg, c.status)
			}
		})
	}
}

// The API key never reaches the editor: not in any message, not in a shell command's
// environment shown back, not on stderr.
func TestKeyNeverReachesEditor(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(shell("env; cat /proc/self/environ | tr '\\0' '\\n'")), fakeai.Text("Listed."))
	p := e.start(plan{Steps: []step{{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "show env"}}},
		"--approve", "auto")
	evs := p.finish()
	var shown string
	for _, u := range updatesOf(evs, 2) {
		if u.SessionUpdate == "tool_call_update" && u.Status == "completed" {
			shown = string(u.Content)
		}
	}
	if !strings.Contains(shown, "PATH=") {
		t.Fatalf("the command's output did not come back: %q", shown)
	}
	log, _ := os.ReadFile(p.log)
	for where, s := range map[string]string{"the client's log": string(log), "stderr": p.stderr.String()} {
		if strings.Contains(s, "sk-acp-secret") {
			t.Errorf("the API key appears in %s", where)
		}
	}
}

// session/list shows every session of the database (made in the CLI here), newest first,
// by folder and a page at a time; session/resume takes one up without replaying it.
func TestListAndResume(t *testing.T) {
	e := newEnv(t)
	db := e.openDB()
	other := t.TempDir()
	for i := 0; i < 51; i++ {
		if _, err := db.CreateSession(context.Background(), store.NewSession{Title: fmt.Sprintf("old %d", i), Workspace: other}); err != nil {
			t.Fatal(err)
		}
	}
	e.srv.Enqueue(fakeai.Text("Made by the CLI."))
	out, code := e.runCLI(append(e.flags("--approve", "auto", "--json", "--workspace", e.ws), "from the terminal")...)
	var first struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first)
	if code != 0 || first.SessionID == "" {
		t.Fatalf("loopdesk run: exit %d, %q", code, out)
	}
	e.srv.Enqueue(fakeai.Text("Resumed."))
	p := e.start(plan{Steps: []step{
		{"op": "initialize"},
		{"op": "request", "method": "session/list", "params": map[string]any{"cwd": e.ws}},
		{"op": "request", "method": "session/list", "params": map[string]any{}},
		{"op": "request", "method": "session/list", "params": map[string]any{"cursor": "50"}},
		{"op": "request", "method": "session/list", "params": map[string]any{"cursor": "nope"}},
		{"op": "resume", "sessionId": first.SessionID, "cwd": e.ws},
		{"op": "prompt", "text": "and now?"},
	}})
	evs := p.finish()
	res := results(evs)
	type list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Title     string `json:"title"`
		} `json:"sessions"`
		NextCursor *string `json:"nextCursor"`
	}
	var byCwd, page1, page2 list
	_ = json.Unmarshal(res[1].Result, &byCwd)
	_ = json.Unmarshal(res[2].Result, &page1)
	_ = json.Unmarshal(res[3].Result, &page2)
	if len(byCwd.Sessions) != 1 || byCwd.Sessions[0].SessionID != first.SessionID || byCwd.Sessions[0].Title != "from the terminal" || byCwd.NextCursor != nil {
		t.Errorf("list by cwd: %s", res[1].Result)
	}
	if len(page1.Sessions) != 50 || page1.Sessions[0].SessionID != first.SessionID || page1.NextCursor == nil || *page1.NextCursor != "50" {
		t.Errorf("first page: %d sessions, first %+v, next %v", len(page1.Sessions), page1.Sessions[0], page1.NextCursor)
	}
	if len(page2.Sessions) != 2 || page2.NextCursor != nil || page2.Sessions[1].Title != "old 0" {
		t.Errorf("second page: %s", res[3].Result)
	}
	if res[4].Ev != "error" || res[4].Code != -32602 {
		t.Errorf("a bad cursor: %+v", res[4])
	}
	if res[5].Ev != "result" || len(updatesOf(evs, 5)) != 0 {
		t.Errorf("resume: %+v with %d updates (it replays nothing)", res[5], len(updatesOf(evs, 5)))
	}
	if stopReason(t, res[6]) != "end_turn" {
		t.Errorf("the resumed session's prompt: %s", res[6].Result)
	}
}
