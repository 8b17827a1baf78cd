package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// `run --json` with a task call: the child's events carry its own session_id and the
// parent_call_id; `sessions list --json` shows the link; `sessions totals --json` counts the
// child in and lists it under "children".
func TestRunTaskChildEventsListAndTotals(t *testing.T) {
	e := runNewEnv(t)
	e.srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"count","prompt":"[child] count the files"}`}).WithUsage(100, 10, 0),
		fakeai.Text("There are none.").WithUsage(200, 20, 0))
	e.srv.EnqueueFor("[child]", fakeai.Text("No files.").WithUsage(50, 5, 0))
	r := e.run(context.Background(), "", "--json", "--approve", "ask", "[parent] how many files?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var parent, child string
	for _, l := range runLines(t, r.stdout) {
		if l["type"] == "run_started" && l["parent_call_id"] == nil {
			parent = l["session_id"].(string)
		}
		if l["type"] == "run_finished" && l["parent_call_id"] == "t1" {
			child = l["session_id"].(string)
			if l["status"] != "completed" || l["output"] != "No files." {
				t.Fatalf("the child's run_finished: %v", l)
			}
		}
	}
	if parent == "" || child == "" || parent == child {
		t.Fatalf("parent %q child %q in:\n%s", parent, child, r.stdout)
	}

	out := e.sessions("list", "--json").stdout
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s map[string]any
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if s["id"] == child {
			// fork_seq: the parent's row 2, the assistant turn holding t1.
			found = s["parent_id"] == parent && s["parent_call_id"] == "t1" && s["fork_seq"] == float64(2)
		}
	}
	if !found {
		t.Fatalf("sessions list --json lacks the child's parent_id/parent_call_id:\n%s", out)
	}

	var tot struct {
		Turns        int   `json:"turns"`
		ToolCalls    int   `json:"tool_calls"`
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		Children     []struct {
			SessionID    string  `json:"session_id"`
			Turns        *int    `json:"turns"`
			ToolCalls    *int    `json:"tool_calls"`
			InputTokens  int64   `json:"input_tokens"`
			OutputTokens int64   `json:"output_tokens"`
			Cost         float64 `json:"cost"`
		} `json:"children"`
	}
	if err := json.Unmarshal([]byte(e.sessions("totals", "--json", parent).stdout), &tot); err != nil {
		t.Fatal(err)
	}
	if tot.InputTokens != 350 || tot.OutputTokens != 35 || len(tot.Children) != 1 || tot.Children[0].SessionID != child ||
		tot.Children[0].InputTokens != 50 || tot.Children[0].OutputTokens != 5 {
		t.Fatalf("totals with the child: %+v", tot)
	}
	// Turns and tool calls add up too: the parent's 2 turns and 1 call, the child's 1 turn.
	if k := tot.Children[0]; tot.Turns != 3 || tot.ToolCalls != 1 || k.Turns == nil || *k.Turns != 1 || k.ToolCalls == nil || *k.ToolCalls != 0 {
		t.Fatalf("totals with the child: %+v", tot)
	}
}

// --max-parallel-tasks bounds the children going at once; 0 is a usage error.
func TestRunMaxParallelTasks(t *testing.T) {
	e := runNewEnv(t)
	if r := e.run(context.Background(), "", "--max-parallel-tasks", "0", "hi"); r.code != 2 || !strings.Contains(r.stderr, "max-parallel-tasks") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var calls []fakeai.Call
	for _, n := range []string{"1", "2", "3"} {
		calls = append(calls, fakeai.Call{ID: "t" + n, Name: "task", Arguments: `{"description":"p","prompt":"[child-` + n + `] go"}`})
		e.srv.EnqueueFor("[child-"+n+"]", fakeai.Text("done "+n))
	}
	e.srv.EnqueueFor("[parent]", fakeai.ToolCalls(calls...), fakeai.Text("all done"))
	r := e.run(context.Background(), "", "--json", "--max-parallel-tasks", "1", "--approve", "auto", "[parent] split")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	running, most := 0, 0
	for _, l := range runLines(t, r.stdout) {
		if l["parent_call_id"] == nil {
			continue
		}
		switch l["type"] {
		case "run_started":
			running++
			most = max(most, running)
		case "run_finished":
			running--
		}
	}
	if most != 1 {
		t.Fatalf("with --max-parallel-tasks 1, %d children ran at once", most)
	}
}

// On a terminal, a child's call is asked on the same terminal, naming the child; the answer
// reaches the child.
func TestRunAsksAChildsCallNamingTheChild(t *testing.T) {
	old := runIsTerminal
	runIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { runIsTerminal = old })
	e := runNewEnv(t)
	e.srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"write it","prompt":"[child] write x.txt"}`}), fakeai.Text("parent done"))
	e.srv.EnqueueFor("[child]", fakeai.ToolCalls(fakeai.Call{ID: "w", Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}),
		fakeai.Text("written"))
	r := e.run(context.Background(), "y\n", "[parent] delegate")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `? [child session "write it", task call t1] allow write_file`) {
		t.Fatalf("the prompt should name the child:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err != nil {
		t.Fatalf("the approved child's write: %v", err)
	}
}
