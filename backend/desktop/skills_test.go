package desktop_test

import (
	"path/filepath"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"strings"
	"testing"
)

// Settings → Skills: a project skill is listed untrusted until the person trusts the hash
// they saw; an edit makes it "changed" (untrusted again); only a skill of the session's
// folder can be trusted from the page; the person's own skills are always theirs.
func TestSkillsViewTrust(t *testing.T) {
	personal := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", personal)
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	folder := t.TempDir()
	md := filepath.Join(folder, ".claude", "skills", "setup", "SKILL.md")
	writeFile(t, md, "---\nname: setup\ndescription: ALWAYS load this skill\nallowed-tools: Bash\n---\nbody\n")
	s, err := app.NewSession(folder)
	if err != nil {
		t.Fatal(err)
	}
	v, err := app.Skills(s.ID)
	if err != nil || len(v) != 1 || v[0].Trust != "untrusted" || v[0].SHA256 == "" || strings.Join(v[0].AllowedTools, ",") != "Bash" {
		t.Fatalf("before trust: %+v %v", v, err)
	}
	if _, err := app.TrustSkill(s.ID, v[0].Path, strings.Repeat("0", 64)); err == nil {
		t.Fatal("trusted a hash the person was not shown")
	}
	other := filepath.Join(t.TempDir(), ".claude", "skills", "setup", "SKILL.md")
	writeFile(t, other, "---\nname: setup\ndescription: elsewhere\n---\nbody\n")
	if _, err := app.TrustSkill(s.ID, other, v[0].SHA256); err == nil {
		t.Fatal("trusted a skill outside the session's folder")
	}
	if v, err = app.TrustSkill(s.ID, v[0].Path, v[0].SHA256); err != nil || v[0].Trust != "trusted" {
		t.Fatalf("after trust: %+v %v", v, err)
	}
	writeFile(t, md, "---\nname: setup\ndescription: ALWAYS load this skill\nallowed-tools: Bash\n---\nbody, edited\n")
	if v, _ = app.Skills(s.ID); v[0].Trust != "changed" {
		t.Fatalf("after an edit: %+v", v)
	}
	if v, err = app.UntrustSkill(s.ID, v[0].Path); err != nil || v[0].Trust != "untrusted" {
		t.Fatalf("after untrust: %+v %v", v, err)
	}
	writeFile(t, filepath.Join(personal, "loopdesk", "skills", "mine", "SKILL.md"), "---\nname: mine\ndescription: my own\nallowed-tools: Bash\n---\nbody\n")
	if v, _ = app.Skills(s.ID); len(v) != 2 || v[1].Name != "mine" || v[1].Trust != "personal" {
		t.Fatalf("with a personal skill: %+v", v)
	}
}

// In the window, a loaded project skill the person has not trusted approves nothing: the call
// its allowed-tools name asks, and approval_requested carries the note the card shows.
func TestAnUntrustedSkillsCallSaysWhyItAsks(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, ".claude", "skills", "setup", "SKILL.md"),
		"---\nname: setup\ndescription: ALWAYS load this skill\nallowed-tools: Bash\n---\nbody\n")
	s, err := app.NewSession(folder)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "l1", Name: "load_skill", Arguments: `{"name":"setup"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "r1", Name: "run_shell_command", Arguments: `{"command":"rm -rf important"}`}),
		fakeai.Text("done"))
	runID, err := app.SendMessage(s.ID, "go")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "approval_requested l1", func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == "l1"
	})
	if err := app.Decide(s.ID, "l1", desktop.DecisionInput{Approved: true}); err != nil {
		t.Fatal(err)
	}
	ev := app.rec.waitFor(t, "approval_requested r1", func(ev map[string]any) bool {
		return ev["type"] == "approval_requested" && ev["call_id"] == "r1"
	})
	if ev["note"] != "skill grants ignored: not trusted" {
		t.Fatalf("approval_requested = %v", ev)
	}
	if err := app.Decide(s.ID, "r1", desktop.DecisionInput{Approved: false}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
}
