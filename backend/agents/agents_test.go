package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/tools"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

// Valid and invalid skill folders in every place skills are read from: the valid ones are
// offered, each invalid one is listed with its path and why.
func TestSkillsValidAndInvalid(t *testing.T) {
	folder, personal := t.TempDir(), t.TempDir()
	write(t, filepath.Join(folder, ".claude/skills/pdf-tools/SKILL.md"),
		"---\nname: pdf-tools\ndescription: >\n  Fill and merge PDF forms.\n  Use for any PDF task.\nallowed-tools: Read Bash\n---\n# PDF\nRun scripts/fill.py.\n")
	write(t, filepath.Join(folder, ".loopdesk/skills/release/SKILL.md"), skillMD("release", "Cut a release.", "Tag, then push.\n"))
	write(t, filepath.Join(folder, ".agents/skills/Bad_Name/SKILL.md"), skillMD("Bad_Name", "x", ""))
	write(t, filepath.Join(folder, ".agents/skills/no-desc/SKILL.md"), "---\nname: no-desc\n---\nbody\n")
	write(t, filepath.Join(folder, ".agents/skills/other/SKILL.md"), skillMD("mismatch", "x", ""))
	write(t, filepath.Join(folder, ".agents/skills/long/SKILL.md"), skillMD("long", strings.Repeat("d", 1025), ""))
	write(t, filepath.Join(folder, ".agents/skills/plain/SKILL.md"), "no front matter here\n")
	write(t, filepath.Join(personal, "skills/release/SKILL.md"), skillMD("release", "My own release steps.", ""))
	if err := os.MkdirAll(filepath.Join(folder, ".agents/skills/empty"), 0o755); err != nil {
		t.Fatal(err)
	}

	got := map[string]agents.Skill{}
	for _, s := range agents.Skills(personal, folder) {
		got[s.Path] = s
	}
	at := func(rel string) agents.Skill { return got[filepath.Join(folder, rel, "SKILL.md")] }
	pdf := at(".claude/skills/pdf-tools")
	if !pdf.Valid() || pdf.Description != "Fill and merge PDF forms. Use for any PDF task." ||
		strings.Join(pdf.AllowedTools, ",") != "Read,Bash" || pdf.Body != "# PDF\nRun scripts/fill.py.\n" {
		t.Fatalf("pdf-tools: %+v", pdf)
	}
	errs := map[string]string{
		".agents/skills/Bad_Name": "lowercase", ".agents/skills/no-desc": "no description", ".agents/skills/other": "differs from its folder",
		".agents/skills/long": "longer than 1024", ".agents/skills/plain": "no front matter", ".agents/skills/empty": "no readable SKILL.md",
	}
	for rel, want := range errs {
		if s := at(rel); s.Valid() || !strings.Contains(s.Error, want) {
			t.Errorf("%s: error %q, want it to say %q", rel, s.Error, want)
		}
	}
	if s := got[filepath.Join(personal, "skills/release/SKILL.md")]; s.Valid() || !strings.Contains(s.Error, "already defined") {
		t.Errorf("a personal skill shadowed by the project's: %+v", s)
	}
	p := agents.Prompt(agents.Skills(personal, folder))
	if !strings.Contains(p, "- pdf-tools: Fill and merge PDF forms. Use for any PDF task.") || !strings.Contains(p, "- release: Cut a release.") ||
		strings.Contains(p, "Bad_Name") || strings.Contains(p, "My own release") {
		t.Fatalf("prompt:\n%s", p)
	}
	if agents.Prompt(nil) != "" {
		t.Fatal("a prompt without skills")
	}
}

// load_skill returns a skill's body or a file of its folder, and nothing outside it.
func TestLoadSkillTool(t *testing.T) {
	folder := t.TempDir()
	write(t, filepath.Join(folder, ".claude/skills/pdf-tools/SKILL.md"), skillMD("pdf-tools", "PDF work.", "Read references/forms.md first.\n"))
	write(t, filepath.Join(folder, ".claude/skills/pdf-tools/references/forms.md"), "Forms have fields.\n")
	write(t, filepath.Join(folder, "secret.txt"), "do not read\n")
	write(t, filepath.Join(folder, ".claude/skills/broken/SKILL.md"), skillMD("broken", "", ""))
	if err := os.Symlink(filepath.Join(folder, "secret.txt"), filepath.Join(folder, ".claude/skills/pdf-tools/link.txt")); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(agents.LoadSkill{})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewManager().Acquire(folder)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Release()
	call := func(args map[string]string) tools.Result {
		b, _ := json.Marshal(args)
		return reg.Run(context.Background(), ws, tools.Call{ID: "c", Name: "load_skill", Arguments: string(b)}, nil)
	}
	if r := call(map[string]string{"name": "pdf-tools"}); r.IsError || !strings.Contains(r.Content, "Read references/forms.md first.") {
		t.Fatalf("body: %+v", r)
	}
	if r := call(map[string]string{"name": "pdf-tools", "file": "references/forms.md"}); r.IsError || r.Content != "Forms have fields.\n" {
		t.Fatalf("file: %+v", r)
	}
	for _, f := range []string{"../../../secret.txt", "link.txt", filepath.Join(folder, "secret.txt")} {
		if r := call(map[string]string{"name": "pdf-tools", "file": f}); !r.IsError || strings.Contains(r.Content, "do not read") {
			t.Fatalf("file %s: %+v", f, r)
		}
	}
	if r := call(map[string]string{"name": "nope"}); !r.IsError || !strings.Contains(r.Content, "the skills are: pdf-tools") {
		t.Fatalf("unknown: %+v", r)
	}
	if r := call(map[string]string{"name": "broken"}); !r.IsError || !strings.Contains(r.Content, "no description") {
		t.Fatalf("invalid: %+v", r)
	}
}

// Command templates: front matter, $ARGUMENTS and positional arguments expanded once.
func TestCommandTemplates(t *testing.T) {
	folder, personal := t.TempDir(), t.TempDir()
	write(t, filepath.Join(folder, ".claude/commands/review.md"),
		"---\ndescription: Review a pull request\nargument-hint: [pr-number]\n---\nReview pull request $ARGUMENTS. Focus on $1.\n")
	write(t, filepath.Join(folder, ".loopdesk/commands/plain.md"), "Summarise the changes.\n")
	write(t, filepath.Join(personal, "commands/review.md"), "shadowed\n")
	write(t, filepath.Join(folder, ".claude/commands/bad.md"), "---\ndescription: [unclosed\n---\nx\n")
	cs := agents.Commands(personal, folder)
	byPath := map[string]agents.Command{}
	for _, c := range cs {
		byPath[c.Path] = c
	}
	review := byPath[filepath.Join(folder, ".claude/commands/review.md")]
	if review.Name != "review" || review.Description != "Review a pull request" || review.ArgumentHint != "[pr-number]" {
		t.Fatalf("review: %+v", review)
	}
	if got := review.Expand(" 42 $1 "); got != "Review pull request 42 $1. Focus on 42." {
		t.Fatalf("expanded %q", got)
	}
	plain := byPath[filepath.Join(folder, ".loopdesk/commands/plain.md")]
	if got := plain.Expand("only the docs"); got != "Summarise the changes.\n\nonly the docs" {
		t.Fatalf("plain: %q", got)
	}
	if c := byPath[filepath.Join(personal, "commands/review.md")]; !strings.Contains(c.Error, "already defined") {
		t.Fatalf("shadowed: %+v", c)
	}
	if c := byPath[filepath.Join(folder, ".claude/commands/bad.md")]; !strings.Contains(c.Error, "YAML") {
		t.Fatalf("bad: %+v", c)
	}
}

// Expand: a command, a skill (sent as written), a path-like text and an unknown name.
func TestExpand(t *testing.T) {
	folder := t.TempDir()
	write(t, filepath.Join(folder, ".loopdesk/commands/fix.md"), "Fix issue #$1: $ARGUMENTS\n")
	write(t, filepath.Join(folder, ".agents/skills/shell-tips/SKILL.md"), skillMD("shell-tips", "Shell tips.", "Quote \"$1\" always.\n"))
	cases := []struct{ in, prompt, command string }{
		{"/fix 12 the crash", "Fix issue #12: 12 the crash", "/fix"},
		{"/shell-tips for the deploy script", "Quote \"$1\" always.\n\nfor the deploy script", "/shell-tips"},
	}
	for _, c := range cases {
		p, cmd, err := agents.Expand("", folder, c.in)
		if err != nil || p != c.prompt || cmd != c.command {
			t.Errorf("%q: %q %q %v", c.in, p, cmd, err)
		}
	}
	for _, in := range []string{"/usr/bin is missing", "fix it", "/"} {
		if _, _, err := agents.Expand("", folder, in); !errors.Is(err, agents.ErrNoCommand) {
			t.Errorf("%q: %v, want ErrNoCommand", in, err)
		}
	}
}

// Claude Code's namespaced commands (a subfolder of commands/) are read by their file name.
func TestNamespacedCommands(t *testing.T) {
	folder := t.TempDir()
	write(t, filepath.Join(folder, ".claude/commands/git/commit.md"), "---\ndescription: Commit\n---\nCommit: $ARGUMENTS\n")
	write(t, filepath.Join(folder, ".claude/commands/notes.txt"), "not a command\n")
	cs := agents.Commands("", folder)
	if len(cs) != 1 || cs[0].Name != "commit" || cs[0].Description != "Commit" {
		t.Fatalf("commands %+v", cs)
	}
	if p, cmd, err := agents.Expand("", folder, "/commit fix the build"); err != nil || p != "Commit: fix the build" || cmd != "/commit" {
		t.Fatalf("expand %q %q %v", p, cmd, err)
	}
}
