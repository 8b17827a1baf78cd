package agents_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
)

// allowed-tools in the specification's space-separated form, Claude Code's comma-separated
// form and as a YAML list all give the same grants, mapped to Loopdesk's tools; entries for
// tools Loopdesk does not have grant nothing.
func TestAllowedToolsForms(t *testing.T) {
	want := []string{
		"edit_file src/** (Edit(./src/**))",
		"mcp__github__* (mcp__github)",
		"read_file (Read)",
		"run_shell_command git (Bash(git:*))",
		"run_shell_command git * (Bash(git:*))",
		"run_shell_command npm run test (Bash(npm run test))",
		"search_text (Grep)",
	}
	forms := map[string]string{
		"spec":   "allowed-tools: Read Grep Bash(git:*) Bash(npm run test) Edit(./src/**) mcp__github WebFetch",
		"claude": `allowed-tools: "Read, Grep, Bash(git:*), Bash(npm run test), Edit(./src/**), mcp__github, WebFetch"`,
		"list":   "allowed-tools:\n  - Read\n  - Grep, Bash(git:*)\n  - Bash(npm run test)\n  - Edit(./src/**)\n  - mcp__github\n  - WebFetch",
	}
	for form, line := range forms {
		t.Run(form, func(t *testing.T) {
			folder := t.TempDir()
			write(t, filepath.Join(folder, ".claude/skills/dev/SKILL.md"), "---\nname: dev\ndescription: Dev work.\n"+line+"\n---\nbody\n")
			skills := agents.Skills("", folder)
			if len(skills) != 1 || !skills[0].Valid() {
				t.Fatalf("skills %+v", skills)
			}
			var got []string
			for _, g := range skills[0].Grants() {
				if g.By != "skill:dev" {
					t.Fatalf("grant by %q", g.By)
				}
				got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s", g.Tool, g.Pattern))+" ("+g.Entry+")")
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("grants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if g := (agents.Catalog{}).Grants(context.Background(), folder); len(g["dev"]) != len(want) {
				t.Fatalf("catalog grants %+v", g)
			}
		})
	}
}
