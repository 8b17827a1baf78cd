package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/config"
)

const agentsUsage = `usage: loopdesk agents list [--json] [--workspace DIR]

Lists the agent definitions a task call can name: DIR/.loopdesk/agents, DIR/.claude/agents,
$XDG_CONFIG_HOME/loopdesk/agents (nearest wins) and the built-in ones. An invalid or shadowed
file is listed with its path and the reason. --json prints one object per line:
{"name", "description", "source", "tools", "model", "error"}.
`

// Agents is `loopdesk agents`. Exit 0 even when some files are invalid: they are listed.
func Agents(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprint(stderr, agentsUsage)
		return ExitUsage
	}
	fs := flag.NewFlagSet("agents list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	ws := fs.String("workspace", ".", "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(stderr, "loopdesk agents: %v\n\n%s", err, agentsUsage)
		return ExitUsage
	}
	folder, err := agentsFolder(*ws)
	if err == nil {
		var personal string
		if personal, err = config.ConfigDir(); err == nil {
			err = printAgents(stdout, agents.Definitions(personal, folder), *asJSON)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk agents: %v\n", err)
		return ExitOther
	}
	return ExitOK
}

// agentsFolder is the workspace as an absolute path; it must be a folder.
func agentsFolder(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err == nil && !st.IsDir() {
		err = errors.New("not a folder")
	}
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	return abs, nil
}

// agentLine is the JSON Lines shape, exactly these keys (docs/cli.md).
type agentLine struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Tools       []string `json:"tools"`
	Model       string   `json:"model"`
	Error       string   `json:"error"`
}

func printAgents(w io.Writer, defs []agents.Definition, asJSON bool) error {
	if asJSON {
		lines := make([]agentLine, len(defs))
		for i, d := range defs {
			lines[i] = agentLine{d.Name, d.Description, d.Source, d.Tools, d.Model, d.Error}
		}
		return jsonLines(w, lines)
	}
	return writeTable(w, defs, "", "NAME\tMODEL\tTOOLS\tSOURCE\tDESCRIPTION / ERROR", func(d agents.Definition) []any {
		tools, about := "(all)", d.Description
		if d.Tools != nil {
			tools = strings.Join(d.Tools, ",")
		}
		if d.Error != "" {
			about = "invalid: " + d.Error
		}
		return []any{d.Name, d.Model, tools, d.Source, about}
	})
}
