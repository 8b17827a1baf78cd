package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// runSessionID is the session_id of a --json run's first line.
func runSessionID(t *testing.T, r runOut) string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	id, _ := runLines(t, r.stdout)[0]["session_id"].(string)
	if id == "" {
		t.Fatalf("no session_id:\n%s", r.stdout)
	}
	return id
}

// A server that numbers calls per response (llama.cpp, Ollama, TGI) gives a later run's
// denied call the plan call's id; the plan stays pinned, and the command line shows it.
func TestSessionsPlanSurvivesReusedCallIDs(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	plan := `{"explanation":"tidy up","plan":[{"step":"read the notes","status":"completed"},{"step":"write the summary","status":"in_progress"}]}`
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "0", Name: "update_plan", Arguments: plan}), fakeai.Text("planned"))
	id := runSessionID(t, e.run(ctx, "", "--json", "--approve", "read-only", "plan it"))

	if r := e.sessions("plan", id, "--json"); r.code != 0 || !strings.Contains(r.stdout, `"write the summary"`) {
		t.Fatalf("after the plan: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	e.srv.Reset()
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "0", Name: "write_file", Arguments: `{"path":"s.txt","content":"x"}`}), fakeai.Text("not allowed"))
	runSessionID(t, e.run(ctx, "", "--json", "--approve", "deny", "--session", id, "write it"))

	r := e.sessions("plan", id, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got struct {
		Explanation string `json:"explanation"`
		Plan        []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
		Seq int64 `json:"seq"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	if got.Explanation != "tidy up" || len(got.Plan) != 2 || got.Plan[1].Step != "write the summary" || got.Plan[1].Status != "in_progress" || got.Seq < 1 {
		t.Fatalf("the plan vanished after a denied call reused its id: %s", r.stdout)
	}

	human := e.sessions("plan", id)
	for _, want := range []string{"tidy up", "[x] 1. read the notes", "[>] 2. write the summary"} {
		if !strings.Contains(human.stdout, want) {
			t.Errorf("human output lacks %q:\n%s", want, human.stdout)
		}
	}
}

// A session without a plan is not an error: null with --json.
func TestSessionsPlanNone(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(fakeai.Text("hello"))
	id := runSessionID(t, e.run(context.Background(), "", "--json", "hi"))
	if r := e.sessions("plan", id, "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != "null" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := e.sessions("plan", "no-such-session"); r.code != 1 {
		t.Fatalf("unknown session: exit %d", r.code)
	}
}
