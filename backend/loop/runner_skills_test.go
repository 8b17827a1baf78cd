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
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The system prompt lists the folder's valid skills; load_skill returns a skill's body as a
// tool result row (so the load is visible); a prompt from a slash command records it.
func TestSkillsListedLoadedAndCommandRecorded(t *testing.T) {
	h := newHarnessWith(t, func(c *loop.Config) {
		reg, err := tools.NewRegistry(append(tools.Builtins(), agents.LoadSkill{})...)
		if err != nil {
			t.Fatal(err)
		}
		c.Tools, c.Skills = reg, agents.Catalog{}
	})
	dir := filepath.Join(h.ws, ".claude", "skills", "changelog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: changelog\ndescription: Write changelog entries.\n---\nUse Keep a Changelog headings.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "load_skill", Arguments: `{"name":"changelog"}`}), fakeai.Text("done"))
	sid := h.session()
	cmd := agents.Command{Name: "changelog", Body: "Add a changelog entry for $ARGUMENTS."}
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: cmd.Expand("the hooks feature"), Command: "/changelog", Mode: tools.ModeReadOnly})
	if res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	reqs := h.requests()
	if sys := reqs[0][0]; sys.Role != "system" || !strings.Contains(sys.Content, "- changelog: Write changelog entries.") {
		t.Fatalf("system message %+v", sys)
	}
	rows := h.rows(sid)
	var u store.UserPayload
	if err := json.Unmarshal(rows[0].Payload, &u); err != nil || u.Command != "/changelog" || u.Text != "Add a changelog entry for the hooks feature." {
		t.Fatalf("user row %s", rows[0].Payload)
	}
	if r := toolResult(t, rows, "c1"); r.IsError || !strings.Contains(r.Content, "Use Keep a Changelog headings.") {
		t.Fatalf("load_skill result %+v", r)
	}
}
