package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FuzzAgentDefinition feeds arbitrary bytes as an agent file (.loopdesk/agents, .claude/agents).
// A definition it accepts has a usable name, a description and no empty or repeated tool, and
// written back as a file it reads the same; one it refuses says why.
func FuzzAgentDefinition(f *testing.F) {
	for _, s := range []string{
		"---\nname: reviewer\ndescription: Reviews a diff\ntools:\n  - read_file\n  - mcp__git__*\nmodel: small-model\nmax_turns: 5\n---\nYou review diffs.\n",
		"---\nname: tester\ndescription: Runs the tests\ntools: Read, Grep, Bash, Task\nmodel: sonnet\nmaxTurns: 7\n---\n\nYou run tests.\n",
		"\xef\xbb\xbf---\r\nname: writer\r\ndescription: Writes docs\r\n---\r\nYou write.\r\n",
		"---\nname: nodesc\n---\nbody\n",
		"---\nname: [unclosed\n---\n",
		"---\nname: Upper\ndescription: x\n---\n",
		"---\nname: zero\ndescription: x\nmax_turns: 0\n---\n",
		"no front matter\n",
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "agent.md") // one per worker process
	f.Fuzz(func(t *testing.T, data []byte) {
		d := readFuzzed(t, path, data)
		if !d.Valid() {
			return
		}
		if !agentName.MatchString(d.Name) || d.Description == "" || d.Description != strings.TrimSpace(d.Description) || d.MaxTurns < 0 {
			t.Fatalf("accepted an unusable definition: %+v", d)
		}
		seen := map[string]bool{}
		for _, tool := range d.Tools {
			if strings.TrimSpace(tool) == "" || seen[tool] {
				t.Fatalf("tools %q hold an empty or repeated name", d.Tools)
			}
			seen[tool] = true
		}
		again := readFuzzed(t, path, agentFile(t, d))
		if !reflect.DeepEqual(d, again) {
			t.Fatalf("read %+v, written back and read %+v", d, again)
		}
	})
}

func readFuzzed(t *testing.T, path string, data []byte) Definition {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	d := readDefinition(path)
	if !d.Valid() && strings.TrimSpace(d.Error) == "" {
		t.Fatalf("refused without saying why: %+v", d)
	}
	return d
}

// agentFile writes d as an agent file.
func agentFile(t *testing.T, d Definition) []byte {
	fm := map[string]any{"name": d.Name, "description": d.Description, "model": d.Model}
	if d.Tools != nil {
		fm["tools"] = d.Tools
	}
	if d.MaxTurns > 0 {
		fm["max_turns"] = d.MaxTurns
	}
	head, err := yaml.Marshal(fm)
	if err != nil {
		t.Fatal(err)
	}
	return []byte("---\n" + string(head) + "---\n" + d.Prompt + "\n")
}

// FuzzSkillFile feeds arbitrary bytes as a skill's SKILL.md. A skill it accepts follows the
// agentskills specification (a name like its folder's, a description within the limits), and
// written back as a file it reads the same; one it refuses says why.
func FuzzSkillFile(f *testing.F) {
	for _, s := range []string{
		"---\nname: pdf-tools\ndescription: >\n  Fill and merge PDF forms.\n  Use for any PDF task.\nallowed-tools: Read Bash\n---\n# PDF\nRun scripts/fill.py.\n",
		"---\nname: pdf-tools\ndescription: Dev work.\nallowed-tools:\n  - Read\n  - Grep, Bash(git:*)\n  - Bash(npm run test)\n  - Edit(./src/**)\n  - mcp__github\n  - WebFetch\n---\nbody\n",
		"---\nname: pdf-tools\ndescription: Dev work.\nallowed-tools: Read, Grep, Bash(git status:*)\n---\nbody\n",
		"---\nname: no-desc\n---\nbody\n",
		"---\nname: other\ndescription: x\n---\n",
		"---\ndescription: [unclosed\n---\nx\n",
	} {
		f.Add([]byte(s))
	}
	dir := filepath.Join(f.TempDir(), "pdf-tools") // one per worker process
	if err := os.Mkdir(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := readSkillFuzzed(t, dir, data)
		if !s.Valid() {
			return
		}
		if !skillName.MatchString(s.Name) || s.Name != "pdf-tools" || s.Description == "" ||
			utf8.RuneCountInString(s.Description) > MaxDescriptionLen {
			t.Fatalf("accepted a skill the specification refuses: %+v", s)
		}
		for _, tool := range s.AllowedTools {
			if strings.TrimSpace(tool) == "" {
				t.Fatalf("allowed-tools %q hold an empty entry", s.AllowedTools)
			}
		}
		fm := map[string]any{"name": s.Name, "description": s.Description}
		if s.AllowedTools != nil {
			fm["allowed-tools"] = s.AllowedTools
		}
		head, err := yaml.Marshal(fm)
		if err != nil {
			t.Fatal(err)
		}
		again := readSkillFuzzed(t, dir, []byte("---\n"+string(head)+"---\n"+s.Body))
		if again.Name != s.Name || again.Description != s.Description || again.Body != s.Body ||
			!reflect.DeepEqual(again.AllowedTools, s.AllowedTools) || !again.Valid() {
			t.Fatalf("read %+v, written back and read %+v", s, again)
		}
	})
}

func readSkillFuzzed(t *testing.T, dir string, data []byte) Skill {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, SkillFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := readSkill(dir)
	if !s.Valid() && strings.TrimSpace(s.Error) == "" {
		t.Fatalf("refused without saying why: %+v", s)
	}
	return s
}
