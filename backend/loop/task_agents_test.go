package loop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

func agentCall(id, description, prompt, agent string) fakeai.Call {
	args, _ := json.Marshal(task.Args{Description: description, Prompt: prompt, Agent: agent})
	return fakeai.Call{ID: id, Name: task.Tool, Arguments: string(args)}
}

// requestWith is the first request whose first user message holds marker, decoded.
func requestWith(t *testing.T, h *harness, marker string) (system string, toolNames []string) {
	t.Helper()
	for _, r := range h.srv.Requests() {
		var body struct {
			Messages []struct{ Role, Content string }
			Tools    []struct {
				Function struct{ Name, Description string }
			}
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		first := ""
		for _, m := range body.Messages {
			if m.Role == "user" {
				first = m.Content
				break
			}
		}
		if !strings.Contains(first, marker) {
			continue
		}
		for _, m := range body.Messages {
			if m.Role == "system" {
				system = m.Content
			}
		}
		for _, tl := range body.Tools {
			toolNames = append(toolNames, tl.Function.Name)
		}
		return system, toolNames
	}
	t.Fatalf("no request for %s", marker)
	return "", nil
}

// A task call naming an agent runs the child with the agent's prompt and only its tools; a
// tool it does not have never runs even when the model calls it; the task tool's description
// lists the agents; an unknown agent is refused with the names.
func TestTaskAgentNarrowsToolsAndUsesItsPrompt(t *testing.T) {
	nester := agents.Definition{Name: "nester", Description: "delegates further", Prompt: "You delegate.", Tools: []string{"read_file", "task"}}
	h := taskHarness(t, task.Config{Agents: func(string) []agents.Definition { return append(agents.Builtins(), nester) }})
	h.srv.EnqueueFor("[parent]", fakeai.ToolCalls(
		agentCall("t1", "look", "[explorer] find the notes", "explore"),
		agentCall("t2", "bad", "[nobody] x", "nobody"),
		agentCall("t3", "nest", "[nester] go deeper", "nester")), fakeai.Text("parent done"))
	h.srv.EnqueueFor("[explorer]", fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"evil.txt","content":"x"}`}),
		fakeai.Text("I could only look."))
	h.srv.EnqueueFor("[nester]", fakeai.ToolCalls(agentCall("n1", "deepest", "[grandchild] leaf work", "")), fakeai.Text("nested done"))
	h.srv.EnqueueFor("[grandchild]", fakeai.Text("leaf"))
	sid := h.session()
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "[parent] go", Mode: tools.ModeAuto, SystemPrompt: "You are the parent."}); res.Status != core.StopCompleted {
		t.Fatalf("parent %+v", res)
	}
	rows := h.rows(sid)
	if got := resultOf(t, rows, "t1"); got.Content != "I could only look." {
		t.Fatalf("explore's answer: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "evil.txt")); !os.IsNotExist(err) {
		t.Fatal("the explore agent wrote a file")
	}
	explorer := childOf(t, h, sid, "t1")
	if got := resultOf(t, h.rows(explorer.ID), "w1"); !got.IsError || !strings.Contains(got.Content, "agent explore does not have it") {
		t.Fatalf("write_file in the explore agent: %+v", got)
	}
	system, names := requestWith(t, h, "[explorer]")
	if !strings.Contains(system, "exploration agent") || strings.Contains(system, "You are the parent.") {
		t.Fatalf("explore's system prompt: %q", system)
	}
	if strings.Join(names, ",") != strings.Join(agents.ReadOnlyTools, ",") {
		t.Fatalf("explore's tools: %v, want %v", names, agents.ReadOnlyTools)
	}
	if got := resultOf(t, rows, "t2"); !got.IsError || !strings.Contains(got.Content, "explore, nester") {
		t.Fatalf("unknown agent: %+v", got)
	}
	// The parent's task tool names the agents; an agent listing task may start children once
	// more (depth 2), and those may not.
	_, parentTools := requestWith(t, h, "[parent]")
	if !containsStr(parentTools, "task") {
		t.Fatalf("parent tools %v", parentTools)
	}
	if body := string(h.srv.Requests()[0].Body); !strings.Contains(body, "- explore: Explores the folder") {
		t.Fatalf("the task tool's description should list the agents: %s", body)
	}
	if _, tl := requestWith(t, h, "[nester]"); !containsStr(tl, "task") || containsStr(tl, "write_file") {
		t.Fatalf("nester's tools %v", tl)
	}
	if _, tl := requestWith(t, h, "[grandchild]"); containsStr(tl, "task") || containsStr(tl, "write_file") {
		t.Fatalf("a depth-2 child was offered the task tool: %v", tl)
	}
	nested := childOf(t, h, sid, "t3")
	if got := resultOf(t, h.rows(nested.ID), "n1"); got.Content != "leaf" {
		t.Fatalf("grandchild's answer in the nester: %+v", got)
	}
	h.checkPairing()
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
