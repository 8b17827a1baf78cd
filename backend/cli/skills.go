package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
)

const skillsUsage = `usage: loopdesk skills list [--json] [--workspace DIR]

Lists the skills of the folder (.loopdesk/skills, .claude/skills, .agents/skills)
and the personal ones ($XDG_CONFIG_HOME/loopdesk/skills), valid or not: an
invalid skill is listed with its SKILL.md and the reason. See docs/skills.md.

flags:
  --json            one JSON object per skill and line:
                    {"name","description","source","error"}
  --workspace DIR   the folder (default: the current folder)
`

// SkillListEntry is one line of `loopdesk skills list --json`, a contract scripts rely on:
// source is the skill's SKILL.md; error is "" for a valid skill.
type SkillListEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Error       string `json:"error"`
}

// Skills runs `loopdesk skills ARGS...`: 0 success (whatever the skills' validity), 1 an
// error, 2 a usage error.
func Skills(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		out, code := stderr, ExitUsage
		if len(args) > 0 {
			out, code = stdout, ExitOK
		}
		fmt.Fprint(out, skillsUsage)
		return code
	}
	fs := flag.NewFlagSet("loopdesk skills list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	workspace := fs.String("workspace", "", "")
	err := fs.Parse(args[1:])
	if err == nil && (args[0] != "list" || fs.NArg() > 0) {
		err = fmt.Errorf("unexpected argument %q", strings.Join(append([]string{args[0]}, fs.Args()...), " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk skills: %v\n\n%s", err, skillsUsage)
		return ExitUsage
	}
	if err := skillsList(*workspace, *asJSON, stdout); err != nil {
		fmt.Fprintf(stderr, "loopdesk skills list: %v\n", err)
		return ExitOther
	}
	return ExitOK
}

func skillsList(dir string, asJSON bool, w io.Writer) error {
	folder, err := hooksFolder(dir)
	if err != nil {
		return err
	}
	personal, err := config.ConfigDir()
	if err != nil {
		return err
	}
	var entries []SkillListEntry
	for _, s := range agents.Skills(personal, folder) {
		entries = append(entries, SkillListEntry{Name: s.Name, Description: s.Description, Source: s.Path, Error: s.Error})
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "no skills (see docs/skills.md)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tSOURCE\tDESCRIPTION")
	for _, e := range entries {
		state, text := "ok", e.Description
		if e.Error != "" {
			state, text = "invalid", e.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, state, e.Source, firstLineOf(text))
	}
	return tw.Flush()
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// runCommand expands a prompt written as a slash command ("/review 42") the way the window
// does: a command template or skill of the run's folder (docs/skills.md). A prompt that
// starts with "/" but names neither runs as typed (it may be a path).
func runCommand(spec *loop.RunSpec, personalDir string) error {
	if !strings.HasPrefix(spec.Prompt, "/") {
		return nil
	}
	folder := spec.Workspace
	if f, err := hooks.Folder(folder); err == nil {
		folder = f
	}
	text, command, err := agents.Expand(personalDir, folder, spec.Prompt)
	if errors.Is(err, agents.ErrNoCommand) {
		return nil
	}
	if err != nil {
		return err
	}
	spec.Prompt, spec.Command = text, command
	return nil
}
