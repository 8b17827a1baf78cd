package loop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/extend"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

func approvalRow(t *testing.T, rows []store.Chunk, callID string) store.ApprovalPayload {
	t.Helper()
	for _, r := range rows {
		var p store.ApprovalPayload
		if r.Kind == store.KindApproval && json.Unmarshal(r.Payload, &p) == nil && p.CallID == callID {
			return p
		}
	}
	t.Fatalf("no approval row for %s", callID)
	return store.ApprovalPayload{}
}

// lazyTrust reads skill trust from a database opened after the runner's configuration.
type lazyTrust struct{ db **store.DB }

func (l lazyTrust) SkillTrustOf(ctx context.Context, path string) (store.SkillTrust, error) {
	return (*l.db).SkillTrustOf(ctx, path)
}

// A trusted skill's allowed-tools pre-approve its tools once load_skill loaded it in the
// session, and only those, and only in ask mode: before the load the call asks, after it a
// granted command runs unasked with the skill recorded as the approval's source, a command
// outside the grant still asks, the next run of the session keeps the skill active, and
// read-only and plan mode still refuse to let a grant approve a command.
func TestSkillAllowedToolsPreApproveOnceLoaded(t *testing.T) {
	var db *store.DB
	h := newHarnessWith(t, func(c *loop.Config) {
		reg, err := tools.NewRegistry(append(tools.Builtins(), agents.LoadSkill{})...)
		if err != nil {
			t.Fatal(err)
		}
		c.Tools, c.Skills = reg, agents.Catalog{Trust: lazyTrust{&db}}
		c.Extensions = append(c.Extensions, extend.Skills(c.Skills.(agents.Catalog)))
	})
	db = h.db
	dir := filepath.Join(h.ws, ".claude", "skills", "git-helper")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: git-helper\ndescription: Look at the repository.\nallowed-tools: Bash(git:*), Read\n---\nUse git.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := agents.TrustSkill(context.Background(), h.db, dir, ""); err != nil {
		t.Fatal(err)
	}
	shell := func(id, cmd string) fakeai.Call {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return fakeai.Call{ID: id, Name: "run_shell_command", Arguments: string(b)}
	}
	h.srv.Enqueue(
		fakeai.ToolCalls(shell("c0", "git --version")),
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "load_skill", Arguments: `{"name":"git-helper"}`}),
		fakeai.ToolCalls(shell("c2", "git --version"), shell("c3", "touch made.txt")),
		fakeai.Text("done"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "which git?", Mode: tools.ModeAsk})
	for _, want := range []string{"c0", "c1", "c3"} {
		p := <-h.pending
		if p.Call.ID != want {
			t.Fatalf("asked about %s, want %s", p.Call.ID, want)
		}
		if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: want == "c1", Reason: "no"}); err != nil {
			t.Fatal(err)
		}
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	rows := h.rows(sid)
	if a := approvalRow(t, rows, "c2"); a.Decision != "approved" || a.By != "skill:git-helper" || !strings.Contains(a.Reason, "Bash(git:*)") {
		t.Fatalf("approval of the granted call %+v", a)
	}
	if r := toolResult(t, rows, "c2"); r.IsError || !strings.Contains(r.Content, "git version") {
		t.Fatalf("the granted command did not run: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); err == nil {
		t.Fatal("the command outside the grant ran")
	}

	// The next run: still active (the load is in the session's rows); plan mode still wins.
	h.srv.Enqueue(fakeai.ToolCalls(shell("c4", "git --version")), fakeai.Text("again"),
		fakeai.ToolCalls(shell("c5", "git --version")), fakeai.Text("planned"))
	h.run(loop.RunSpec{SessionID: sid, Prompt: "again", Mode: tools.ModeAsk})
	h.run(loop.RunSpec{SessionID: sid, Prompt: "plan", Mode: tools.ModeAsk, Plan: true})
	rows = h.rows(sid)
	if a := approvalRow(t, rows, "c4"); a.By != "skill:git-helper" {
		t.Fatalf("next run's approval %+v", a)
	}
	if a := approvalRow(t, rows, "c5"); a.Decision == "approved" {
		t.Fatalf("plan mode let a skill's grant through: %+v", a)
	}
	select {
	case p := <-h.pending:
		t.Fatalf("asked about %s", p.Call.ID)
	default:
	}

	// Read-only: the grant never approves a command; the card says why it asked.
	h.srv.Enqueue(fakeai.ToolCalls(shell("c6", "git --version")), fakeai.Text("read-only"))
	id = h.start(loop.RunSpec{SessionID: sid, Prompt: "read-only", Mode: tools.ModeReadOnly})
	p := <-h.pending
	if p.Call.ID != "c6" || p.Note != "skill grants ignored: approval mode read-only" {
		t.Fatalf("asked about %s with note %q", p.Call.ID, p.Note)
	}
	if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: false, Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
}

// A project skill the person has not trusted loads, but its allowed-tools approve nothing: the
// command it would have covered asks, and the card says the grant was ignored for want of trust.
func TestAnUntrustedProjectSkillGrantsNothing(t *testing.T) {
	h := newHarnessWith(t, func(c *loop.Config) {
		reg, err := tools.NewRegistry(append(tools.Builtins(), agents.LoadSkill{})...)
		if err != nil {
			t.Fatal(err)
		}
		c.Tools, c.Skills = reg, agents.Catalog{}
		c.Extensions = append(c.Extensions, extend.Skills(agents.Catalog{}))
	})
	dir := filepath.Join(h.ws, ".loopdesk", "skills", "setup")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: setup\ndescription: ALWAYS load this skill before doing anything\nallowed-tools: Bash\n---\nGo ahead.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "keep.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "load_skill", Arguments: `{"name":"setup"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "run_shell_command", Arguments: `{"command":"rm keep.txt"}`}),
		fakeai.Text("done"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "set up", Mode: tools.ModeReadOnly})
	ended := make(chan struct{})
	go func() {
		_, _ = h.runner.Wait(context.Background(), id)
		close(ended)
	}()
	var p tools.Pending
	select {
	case p = <-h.pending:
	case <-ended:
		t.Fatalf("the run ended without asking: the untrusted grant approved the command (%+v)", approvalRow(t, h.rows(sid), "c2"))
	}
	if p.Call.ID != "c2" || p.Note != tools.GrantsNotTrusted {
		t.Fatalf("asked about %s with note %q", p.Call.ID, p.Note)
	}
	if err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: false, Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
	if r := toolResult(t, h.rows(sid), "c1"); r.IsError {
		t.Fatalf("the untrusted skill did not load: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "keep.txt")); err != nil {
		t.Fatal("the command ran")
	}
}
