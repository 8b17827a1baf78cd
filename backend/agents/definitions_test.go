package agents_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
)

func writeAgentFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func byName(defs []agents.Definition) map[string][]agents.Definition {
	out := map[string][]agents.Definition{}
	for _, d := range defs {
		out[d.Name] = append(out[d.Name], d)
	}
	return out
}

// Loopdesk's own format, Claude Code's unchanged, the nearest folder winning, and every
// invalid file reported with its path and the reason.
func TestDefinitionsFromEveryFolder(t *testing.T) {
	folder, personal := t.TempDir(), t.TempDir()
	writeAgentFile(t, filepath.Join(folder, ".loopdesk/agents/reviewer.md"), "---\nname: reviewer\ndescription: Reviews a diff\n"+
		"tools:\n  - read_file\n  - mcp__git__*\nmodel: small-model\nmax_turns: 5\n---\nYou review diffs.\n")
	writeAgentFile(t, filepath.Join(folder, ".claude/agents/tester.md"), "---\nname: tester\ndescription: Runs the tests\n"+
		"tools: Read, Grep, Bash, Task\nmodel: sonnet\nmaxTurns: 7\n---\n\nYou run tests.\n")
	writeAgentFile(t, filepath.Join(folder, ".claude/agents/reviewer.md"), "---\nname: reviewer\ndescription: an older reviewer\n---\nold\n")
	writeAgentFile(t, filepath.Join(personal, "agents/writer.md"), "---\nname: writer\ndescription: Writes docs\n---\nYou write.\n")
	writeAgentFile(t, filepath.Join(personal, "agents/nodesc.md"), "---\nname: nodesc\n---\nbody\n")
	writeAgentFile(t, filepath.Join(personal, "agents/plain.md"), "no front matter here\n")
	writeAgentFile(t, filepath.Join(personal, "agents/bad-yaml.md"), "---\nname: [unclosed\n---\n")
	writeAgentFile(t, filepath.Join(personal, "agents/Upper.md"), "---\nname: Upper\ndescription: x\n---\n")
	writeAgentFile(t, filepath.Join(personal, "agents/zero.md"), "---\nname: zero\ndescription: x\nmax_turns: 0\n---\n")

	got := byName(agents.Definitions(personal, folder))
	rev := got["reviewer"]
	if len(rev) != 2 || !rev[0].Valid() || rev[0].Model != "small-model" || rev[0].MaxTurns != 5 || rev[0].Prompt != "You review diffs." ||
		!reflect.DeepEqual(rev[0].Tools, []string{"read_file", "mcp__git__*"}) {
		t.Fatalf("reviewer: %+v", rev)
	}
	if rev[1].Valid() || !strings.Contains(rev[1].Error, "shadowed by "+filepath.Join(folder, ".loopdesk/agents/reviewer.md")) {
		t.Fatalf("the .claude reviewer should be shadowed by the .loopdesk one: %+v", rev[1])
	}
	tester := got["tester"][0]
	if !tester.Valid() || tester.MaxTurns != 7 || tester.Model != agents.Inherit ||
		!reflect.DeepEqual(tester.Tools, []string{"read_file", "search_text", "run_shell_command", "task"}) {
		t.Fatalf("Claude Code's format: %+v", tester)
	}
	if w := got["writer"][0]; !w.Valid() || w.Tools != nil || w.Model != agents.Inherit {
		t.Fatalf("writer: %+v", w)
	}
	for name, want := range map[string]string{"nodesc": "description is required", "plain": "no front matter",
		"bad-yaml": "front matter", "Upper": "lowercase", "zero": "max_turns 0"} {
		d := got[name]
		if len(d) != 1 || d[0].Valid() || !strings.Contains(d[0].Error, want) || !strings.HasPrefix(d[0].Source, personal) {
			t.Errorf("%s: want an error with %q and its path, got %+v", name, want, d)
		}
	}
	if ex := got["explore"]; len(ex) != 1 || ex[0].Source != agents.BuiltinSource || !reflect.DeepEqual(ex[0].Tools, agents.ReadOnlyTools) {
		t.Fatalf("the built-in explore agent: %+v", ex)
	}
	if n := len(agents.Valid(agents.Definitions(personal, folder))); n != 4 {
		t.Fatalf("valid definitions: %d, want reviewer, tester, writer, explore", n)
	}
}

// A definition's tools narrow: only listed names and mcp__server__* patterns are allowed.
func TestDefinitionAllows(t *testing.T) {
	d := agents.Definition{Tools: []string{"read_file", "mcp__git__*"}}
	for tool, want := range map[string]bool{"read_file": true, "write_file": false, "mcp__git__log": true, "mcp__gitx__log": false, "task": false} {
		if d.Allows(tool) != want {
			t.Errorf("Allows(%s) = %v", tool, !want)
		}
	}
	if !(agents.Definition{}).Allows("anything") {
		t.Error("without tools every tool of the parent is allowed")
	}
}
