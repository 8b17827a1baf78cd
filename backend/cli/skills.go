package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
)

const skillsUsage = `usage: loopdesk skills list [--json] [--workspace DIR] [--db PATH]
       loopdesk skills trust PATH [--db PATH]
       loopdesk skills untrust PATH [--db PATH]

list lists the skills of the folder (.loopdesk/skills, .claude/skills,
.agents/skills) and the personal ones ($XDG_CONFIG_HOME/loopdesk/skills), valid
or not: an invalid skill is listed with its SKILL.md and the reason.

A project skill (one of the folder's) was written by the repository: its
allowed-tools pre-approve nothing until you trust that exact SKILL.md. trust
keeps the file's sha256, so any edit makes it untrusted again; PATH is the
SKILL.md or its folder. untrust forgets the trust. Personal skills are yours and
always trusted. See docs/skills.md and docs/security.md.

flags:
  --json            one JSON object per skill and line:
                    {"name","description","source","error","trust","sha256","allowed_tools"}
` + folderFlagsUsage

// SkillListEntry is one line of `loopdesk skills list --json`, a contract scripts rely on:
// source is the skill's SKILL.md; error is "" for a valid skill; trust is "personal",
// "trusted", "untrusted" or "changed" (trusted once, edited since); sha256 is the SKILL.md's.
type SkillListEntry struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Source       string   `json:"source"`
	Error        string   `json:"error"`
	Trust        string   `json:"trust"`
	SHA256       string   `json:"sha256"`
	AllowedTools []string `json:"allowed_tools"`
}

// Skills runs `loopdesk skills ARGS...`: 0 success (whatever the skills' validity), 1 an
// error, 2 a usage error.
func Skills(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if code, asked := helpAsked(args, skillsUsage, stdout, stderr); asked {
		return code
	}
	cmd := args[0]
	var f folderFlags
	fs := f.flagSet("loopdesk skills " + cmd)
	rest, err := parseInterspersed(fs, args[1:])
	switch {
	case err != nil:
	case cmd == "list" && len(rest) > 0:
		err = fmt.Errorf("unexpected argument %q", strings.Join(rest, " "))
	case (cmd == "trust" || cmd == "untrust") && (len(rest) != 1 || f.json || f.workspace != ""):
		err = fmt.Errorf("%s takes one PATH (a SKILL.md or its folder) and --db", cmd)
	case cmd != "list" && cmd != "trust" && cmd != "untrust":
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk skills: %v\n\n%s", err, skillsUsage)
		return ExitUsage
	}
	if cmd == "list" {
		err = skillsList(ctx, f.workspace, f.db, f.json, getenv, stdout)
	} else {
		err = skillsTrust(ctx, cmd, rest[0], f.db, getenv, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk skills %s: %v\n", cmd, err)
		return ExitOther
	}
	return ExitOK
}

// parseInterspersed parses flags that may come before or after the positional arguments
// ("skills trust PATH --db X" as well as "skills trust --db X PATH").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func skillsTrust(ctx context.Context, cmd, path, dbPath string, getenv func(string) string, w io.Writer) error {
	db, done, err := trustDB(ctx, dbPath, getenv, true)
	if err != nil {
		return err
	}
	defer done()
	if cmd == "untrust" {
		s, err := agents.UntrustSkill(ctx, db, path)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "skill %s (%s) is no longer trusted: its allowed-tools pre-approve nothing\n", s.Name, s.Path)
		return err
	}
	s, err := agents.TrustSkill(ctx, db, path, "")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "trusted skill %s (%s, sha256 %s): allowed-tools %s\n", s.Name, s.Path, s.SHA256, orNoneList(s.AllowedTools))
	return err
}

func orNoneList(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

func skillsList(ctx context.Context, dir, dbPath string, asJSON bool, getenv func(string) string, w io.Writer) error {
	folder, personal, db, done, err := listed(ctx, dir, dbPath, getenv)
	if err != nil {
		return err
	}
	defer done()
	var trust agents.TrustSource
	if db != nil {
		trust = db
	}
	var entries []SkillListEntry
	for _, s := range agents.WithTrust(ctx, trust, agents.Skills(personal, folder)) {
		entries = append(entries, SkillListEntry{Name: s.Name, Description: s.Description, Source: s.Path, Error: s.Error,
			Trust: string(s.Trust), SHA256: s.SHA256, AllowedTools: s.AllowedTools})
	}
	if asJSON {
		return jsonLines(w, entries)
	}
	return writeTable(w, entries, "no skills (see docs/skills.md)", "NAME\tSTATE\tTRUST\tSOURCE\tDESCRIPTION", func(e SkillListEntry) []any {
		state, text := "ok", e.Description
		if e.Error != "" {
			state, text = "invalid", e.Error
		}
		return []any{e.Name, state, e.Trust, e.Source, firstLineOf(text)}
	})
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
