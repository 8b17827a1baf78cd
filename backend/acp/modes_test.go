package acp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// serveEchoMCP is a stdio MCP server with one tool, echo {message}.
func serveEchoMCP() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "acp-test", Version: "1"}, nil)
	type args struct {
		Message string `json:"message"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Message}}}, nil, nil
	})
	_ = srv.Run(context.Background(), &sdk.StdioTransport{})
}

// The client's MCP servers join that session, and only that one: the model is offered their
// tools there and a call runs through the same pipeline as a built-in one; a second session
// of the same connection, made without them, is not offered them.
func TestClientMCPServers(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{Name: "mcp__editor__echo", Arguments: `{"message":"from the editor"}`}), fakeai.Text("Echoed."))
	self, _ := os.Executable()
	p := e.start(plan{Steps: []step{
		{"op": "initialize"},
		{"op": "new", "cwd": e.ws, "mcpServers": []any{map[string]any{"name": "editor", "command": self, "args": []string{},
			"env": []any{map[string]string{"name": "LOOPDESK_ACP_MCP_SERVER", "value": "1"}}}}},
		{"op": "prompt", "text": "echo something"},
		{"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "plain session"},
	}}, "--approve", "auto")
	evs := p.finish()
	res := results(evs)
	if res[1].Ev != "result" || stopReason(t, res[2]) != "end_turn" || stopReason(t, res[4]) != "end_turn" {
		t.Fatalf("steps: %s", dump(res))
	}
	var done bool
	for _, u := range updatesOf(evs, 2) {
		if u.SessionUpdate == "tool_call_update" && u.Status == "completed" {
			done = strings.Contains(string(u.Content), "echo: from the editor")
		}
	}
	if !done {
		t.Errorf("the MCP call did not complete with the server's answer:\n%s", dump(evs))
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[0].Body), "mcp__editor__echo") {
		t.Fatalf("the first of %d model requests did not offer the client's MCP tool", len(reqs))
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "plain session") || strings.Contains(body, "mcp__editor__") {
		t.Errorf("the second session's request offers the first session's MCP tool (or is not its request)")
	}
}

// session/set_mode plan: Loopdesk refuses file changes in Go (no permission is even asked),
// the run is recorded as a plan run, and loading the session again reports plan mode.
func TestPlanMode(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(write("plan.txt", "x")), fakeai.Text("Here is the plan."))
	p := e.start(plan{Answers: []string{"allow_once"}, Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "mode", "modeId": "plan"},
		{"op": "prompt", "text": "plan the work"},
	}}, "--approve", "ask")
	evs := p.finish()
	res := results(evs)
	if res[2].Ev != "result" || stopReason(t, res[3]) != "end_turn" {
		t.Fatalf("steps: %s", dump(res))
	}
	for _, ev := range evs {
		if ev.Ev == "permission" {
			t.Error("plan mode asked for a permission it must refuse by itself")
		}
	}
	var status string
	for _, u := range updatesOf(evs, 3) {
		if u.SessionUpdate == "tool_call_update" && u.Status != "" {
			status = u.Status
		}
	}
	if status != "failed" {
		t.Errorf("the refused write ended %q", status)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "plan.txt")); !os.IsNotExist(err) {
		t.Errorf("plan mode wrote a file: %v", err)
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res[1].Result, &sid)
	runs, _ := e.openDB().ListRuns(context.Background(), sid.SessionID)
	if len(runs) != 1 || runs[0].Mode != store.ModePlan {
		t.Errorf("runs %+v", runs)
	}
	p2 := e.start(plan{Steps: []step{{"op": "initialize"}, {"op": "load", "sessionId": sid.SessionID, "cwd": e.ws}}})
	var loaded struct {
		Modes struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	_ = json.Unmarshal(results(p2.finish())[1].Result, &loaded)
	if loaded.Modes.CurrentModeID != "plan" {
		t.Errorf("the loaded session's mode is %q", loaded.Modes.CurrentModeID)
	}
}

// A second session/prompt while the first runs replaces it (the ACP SDK cancels the first
// request): the first ends "cancelled" with its call answered, the second runs to the end.
func TestSecondPromptReplacesRunning(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(shell("sleep 30")), fakeai.Text("Second answer."))
	p := e.start(plan{Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "first", "async": true},
		{"op": "waitUpdate", "status": "in_progress"},
		{"op": "prompt", "text": "second"},
		{"op": "settle"},
	}}, "--approve", "auto")
	evs := p.finish()
	var first, second event
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	var message string
	for _, ev := range evs {
		switch {
		case ev.Ev == "result" && ev.Op == "new":
			_ = json.Unmarshal(ev.Result, &sid)
		case ev.Ev == "result" && ev.Op == "prompt" && ev.Text == "first":
			first = ev
		case ev.Ev == "result" && ev.Op == "prompt":
			second = ev
		case ev.Ev == "update" && ev.Update.SessionUpdate == "agent_message_chunk":
			message += ev.Update.text()
		}
	}
	if first.Ev == "" || second.Ev == "" {
		t.Fatalf("outcomes missing:\n%s", dump(evs))
	}
	if stopReason(t, first) != "cancelled" || stopReason(t, second) != "end_turn" || message != "Second answer." {
		t.Errorf("first %s, second %s, message %q", first.Result, second.Result, message)
	}
	runs, _ := e.openDB().ListRuns(context.Background(), sid.SessionID)
	if len(runs) != 2 || runs[0].Status != "cancelled" || runs[1].Status != "completed" {
		t.Errorf("runs %+v", runs)
	}
}

// Two agents on one database at once (as the window and an editor would be): each session
// gets its own rows, and each is visible to the other process's store.
func TestTwoAgentsShareDatabase(t *testing.T) {
	e := newEnv(t)
	steps := func(text string) []step {
		return []step{{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": text}, {"op": "prompt", "text": text + " again"}}
	}
	a := e.start(plan{Steps: steps("alpha")}, "--approve", "auto")
	b := e.start(plan{Steps: steps("beta")}, "--approve", "auto")
	for name, p := range map[string]*pair{"alpha": a, "beta": b} {
		res := results(p.finish())
		if len(res) != 4 || stopReason(t, res[2]) != "end_turn" || stopReason(t, res[3]) != "end_turn" {
			t.Fatalf("%s: %s", name, dump(res))
		}
		var sid struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(res[1].Result, &sid)
		rows, err := e.openDB().Chunks(context.Background(), sid.SessionID)
		if err != nil || len(rows) != 4 {
			t.Fatalf("%s: %d rows (%v)", name, len(rows), err)
		}
		var last store.AssistantPayload
		_ = json.Unmarshal(rows[3].Payload, &last)
		if last.Text != "You said: "+name+" again" {
			t.Errorf("%s's last answer is %q", name, last.Text)
		}
	}
}

// A session running in one process (here another agent; the window or the CLI alike) is
// refused to a second one with an error the editor can show, and its run goes on.
func TestSessionBusyInAnotherProcess(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(shell("sleep 30")))
	a := e.start(plan{Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "long", "async": true}, {"op": "waitUpdate", "status": "in_progress"}, {"op": "hang"},
	}}, "--approve", "auto")
	evs := a.waitFor("hanging", func(ev event) bool { return ev.Ev == "hanging" })
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(results(evs)[1].Result, &sid)
	b := e.start(plan{Steps: []step{
		{"op": "initialize"}, {"op": "load", "sessionId": sid.SessionID, "cwd": e.ws}, {"op": "prompt", "text": "me too"},
	}}, "--approve", "auto")
	bevs := b.finish()
	res := results(bevs)
	if len(res) != 3 || res[2].Ev != "error" || res[2].Code != -32600 || !strings.Contains(string(mustJSON(res[2])), "another Loopdesk process") {
		t.Fatalf("the second process's prompt: %s", dump(bevs))
	}
	runs, _ := e.openDB().ListRuns(context.Background(), sid.SessionID)
	if len(runs) != 1 || runs[0].Status != store.RunRunning {
		t.Errorf("the first process's run should still be running alone: %+v", runs)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// The model's update_plan reaches the editor as a plan update: its steps, in order, with
// their status.
func TestPlanUpdateReachesTheEditor(t *testing.T) {
	e := newEnv(t)
	args := `{"explanation":"two steps","plan":[{"step":"read the code","status":"completed"},{"step":"fix the bug","status":"in_progress"}]}`
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "p1", Name: "update_plan", Arguments: args}), fakeai.Text("Working on it."))
	p := e.start(plan{Steps: []step{{"op": "initialize"}, {"op": "new", "cwd": e.ws}, {"op": "prompt", "text": "plan and fix"}}}, "--approve", "ask")
	evs := p.finish()
	var got []string
	for _, u := range updatesOf(evs, 2) {
		if u.SessionUpdate == "plan" {
			got = got[:0]
			for _, en := range u.Entries {
				got = append(got, en.Content+"="+en.Status)
			}
		}
	}
	if strings.Join(got, ", ") != "read the code=completed, fix the bug=in_progress" {
		t.Fatalf("plan entries %q\n%s", got, dump(results(evs)))
	}
}

// An image block of the prompt is kept in the journal and reaches the model as an image part;
// the capability is offered for a model that takes images.
func TestPromptImageReachesTheModel(t *testing.T) {
	e := newEnv(t)
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(buf.Bytes())
	e.srv.Enqueue(fakeai.Text("A black rectangle."))
	p := e.start(plan{Steps: []step{{"op": "initialize"}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "what is this?", "images": []map[string]string{{"data": data, "mimeType": "image/png"}}}}})
	evs := p.finish()
	res := results(evs)
	if !strings.Contains(string(res[0].Result), `"image":true`) || stopReason(t, res[2]) != "end_turn" {
		t.Fatalf("steps: %s", dump(res))
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"image_url":{"url":"data:image/png;base64,`+data+`"}`) {
		t.Fatalf("the model was not sent the image: %.400s", reqs[len(reqs)-1].Body)
	}
}
