package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func writeHooksFile(t *testing.T, path, command string) {
	t.Helper()
	cfg := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": command}}}}}}
	b, _ := json.Marshal(cfg)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func hooksCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Hooks(context.Background(), args, os.Getenv, &out, &errb)
	return code, out.String(), errb.String()
}

// `hooks list --json` prints the fields exactly; `hooks trust` trusts the folder's
// project hooks, and an edit untrusts them.
func TestHooksListAndTrust(t *testing.T) {
	e := runNewEnv(t)
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	writeHooksFile(t, filepath.Join(cfgHome, "loopdesk", "hooks.json"), "echo personal")
	writeHooksFile(t, filepath.Join(e.ws, ".claude", "settings.json"), "echo project")

	code, out, errs := hooksCmd(t, "list", "--json", "--workspace", e.ws, "--db", e.db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(e.db); err == nil {
		t.Fatal("listing hooks created a database")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines:\n%s", out)
	}
	var keys []string
	var project map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["source"] == "project" {
			project = m
		}
		keys = keys[:0]
		for k := range m {
			keys = append(keys, k)
		}
	}
	if len(keys) != 6 || project == nil || project["event"] != "PreToolUse" || project["matcher"] != "Bash" ||
		project["command"] != "echo project" || project["trusted"] != false || len(project["sha256"].(string)) != 64 {
		t.Fatalf("list:\n%s", out)
	}

	if code, out, errs := hooksCmd(t, "trust", "--workspace", e.ws, "--db", e.db); code != 0 || !strings.Contains(out, "trusted 1 project hook") {
		t.Fatalf("trust: %d %s %s", code, out, errs)
	}
	_, out, _ = hooksCmd(t, "list", "--json", "--workspace", e.ws, "--db", e.db)
	if !strings.Contains(out, `"source":"project","trusted":true`) {
		t.Fatalf("after trust:\n%s", out)
	}
	writeHooksFile(t, filepath.Join(e.ws, ".claude", "settings.json"), "echo project changed")
	_, out, _ = hooksCmd(t, "list", "--workspace", e.ws, "--db", e.db)
	if !strings.Contains(out, "not trusted") || !strings.Contains(out, "+ ") || !strings.Contains(out, "echo project changed") {
		t.Fatalf("after an edit:\n%s", out)
	}
	if code, _, _ := hooksCmd(t, "trust", "--json"); code != ExitUsage {
		t.Fatalf("trust --json: exit %d, want usage", code)
	}
}

// `loopdesk run` skips untrusted project hooks and says so on stderr; once trusted they run.
func TestRunSkipsUntrustedProjectHooks(t *testing.T) {
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	marker := filepath.Join(t.TempDir(), "hook-ran")
	writeHooksFile(t, filepath.Join(e.ws, ".loopdesk", "hooks.json"), "echo x >> "+marker)
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}),
		fakeai.Text("done"))
	r := e.run(context.Background(), "", "--approve", "auto", "--sandbox", "off", "say hi")
	if r.code != 0 || !strings.Contains(r.stderr, "1 project hook(s) of") || !strings.Contains(r.stderr, "skipped: not trusted") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	if code, _, errs := hooksCmd(t, "trust", "--workspace", e.ws, "--db", e.db); code != 0 {
		t.Fatal(errs)
	}
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "run_shell_command", Arguments: `{"command":"echo hi"}`}),
		fakeai.Text("done"))
	r = e.run(context.Background(), "", "--approve", "auto", "--sandbox", "off", "say hi again")
	if r.code != 0 || strings.Contains(r.stderr, "skipped") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the trusted project hook did not run")
	}
}

// `skills list --json` prints {"name","description","source","error","trust","sha256",
// "allowed_tools"} for valid and invalid skills alike; a project skill is untrusted until the
// person trusts it.
func TestSkillsList(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for path, text := range map[string]string{
		".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\nsteps\n",
		".agents/skills/Oops/SKILL.md":    "---\nname: Oops\ndescription: x\n---\n",
	} {
		p := filepath.Join(ws, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := Skills(context.Background(), []string{"list", "--json", "--workspace", ws, "--db", filepath.Join(t.TempDir(), "none.db")}, os.Getenv, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("output:\n%s", out.String())
	}
	var valid, invalid map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || len(m) != 7 {
			t.Fatalf("line %s: %v", l, err)
		}
		if m["error"] == "" {
			valid = m
		} else {
			invalid = m
		}
	}
	if valid["name"] != "release" || valid["description"] != "Cut a release." || valid["trust"] != "untrusted" || !strings.HasSuffix(valid["source"].(string), ".claude/skills/release/SKILL.md") {
		t.Fatalf("valid: %v", valid)
	}
	if invalid == nil || !strings.HasSuffix(invalid["source"].(string), ".agents/skills/Oops/SKILL.md") || !strings.Contains(invalid["error"].(string), "lowercase") {
		t.Fatalf("invalid: %v", invalid)
	}
	if code := Skills(context.Background(), []string{"show"}, os.Getenv, &out, &errb); code != ExitUsage {
		t.Fatalf("skills show: exit %d", code)
	}
}

// `loopdesk run "/review 42"` sends the command template expanded, as the window does; the
// row records the command.
func TestRunExpandsASlashCommand(t *testing.T) {
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := filepath.Join(e.ws, ".claude", "commands", "review.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\ndescription: Review\n---\nReview pull request $ARGUMENTS.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(fakeai.Text("reviewed"))
	if r := e.run(context.Background(), "", "/review 42"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(e.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if last := body.Messages[len(body.Messages)-1]["content"]; last != "Review pull request 42." {
		t.Fatalf("sent %q", last)
	}
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.ListSessions(context.Background())
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %v %v", sessions, err)
	}
	rows, err := db.Chunks(context.Background(), sessions[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var u store.UserPayload
	if err := json.Unmarshal(rows[0].Payload, &u); err != nil || u.Command != "/review" {
		t.Fatalf("user row %s", rows[0].Payload)
	}
}
