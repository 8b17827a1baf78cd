package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loopdesk/loopdesk/backend/mcp"
)

// Exit statuses of `loopdesk mcp` (docs/cli.md).
const (
	mcpExitOK    = 0
	mcpExitError = 1 // a bad config file, or output that could not be written
	mcpExitUsage = 2
)

const mcpUsage = `usage: loopdesk mcp list [--json] [--mcp-config FILE]...

Starts the MCP servers of $XDG_CONFIG_HOME/loopdesk/mcp.json (and of each
--mcp-config file, which add servers or replace those of the same name), waits
until each is ready or failed (at most the 10 s initialize timeout), prints
their status and stops them. Needs no database and no display.

flags:
  --json               one JSON object per server and line:
                       {"name","transport","status","reason","tools","stderr_tail"}
  --mcp-config FILE    another config file in the mcpServers format (repeatable)
`

// MCPListEntry is one line of `loopdesk mcp list --json`, a contract scripts
// rely on: status is "ready", "failed" or "disabled".
type MCPListEntry struct {
	Name       string   `json:"name"`
	Transport  string   `json:"transport"`
	Status     string   `json:"status"`
	Reason     string   `json:"reason"`
	Tools      []string `json:"tools"`
	StderrTail string   `json:"stderr_tail"`
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// MCP runs `loopdesk mcp ARGS...` and returns the exit status: 0 success
// (whatever the servers' health), 1 a bad config file (the message names it),
// 2 a usage error.
func MCP(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if code, asked := helpAsked(args, mcpUsage, stdout, stderr); asked {
		return code
	}
	if args[0] != "list" {
		fmt.Fprintf(stderr, "loopdesk mcp: unknown command %q\n\n%s", args[0], mcpUsage)
		return mcpExitUsage
	}
	fs := flag.NewFlagSet("loopdesk mcp list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	var configs stringList
	fs.Var(&configs, "mcp-config", "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(stderr, "loopdesk mcp list: %v\n\n%s", err, mcpUsage)
		return mcpExitUsage
	}
	cfg, err := mcp.LoadConfig(configs...)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk mcp list: %v\n", err)
		return mcpExitError
	}
	m := mcp.Start(cfg, mcp.Options{})
	defer m.Close()
	_ = m.WaitSettled(ctx) // an interrupted wait lists the servers as they are
	entries := listEntries(m.Statuses())
	if *asJSON {
		err = writeMCPJSON(stdout, entries)
	} else {
		err = writeMCPTable(stdout, entries)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk mcp list: %v\n", err)
		return mcpExitError
	}
	return mcpExitOK
}

// listEntries maps statuses to the list contract. A server that is not ready
// or disabled once the wait is over (it exited right after starting, or the
// wait was interrupted) is listed as failed, its state kept in the reason.
func listEntries(statuses []mcp.Status) []MCPListEntry {
	out := make([]MCPListEntry, 0, len(statuses))
	for _, s := range statuses {
		e := MCPListEntry{Name: s.Name, Transport: s.Transport, Status: string(s.State), Reason: s.Reason, Tools: s.Tools, StderrTail: s.StderrTail}
		switch s.State {
		case mcp.StateReady, mcp.StateFailed, mcp.StateDisabled:
		default:
			e.Status = string(mcp.StateFailed)
			e.Reason = strings.TrimSuffix(string(s.State)+": "+s.Reason, ": ")
		}
		if e.Tools == nil {
			e.Tools = []string{}
		}
		out = append(out, e)
	}
	return out
}

func writeMCPJSON(w io.Writer, entries []MCPListEntry) error { return jsonLines(w, entries) }

func writeMCPTable(w io.Writer, entries []MCPListEntry) error {
	err := writeTable(w, entries, "no MCP servers configured (add them to $XDG_CONFIG_HOME/loopdesk/mcp.json; see docs/tools.md)",
		"NAME\tTRANSPORT\tSTATUS\tTOOLS\tREASON", func(e MCPListEntry) []any {
			return []any{e.Name, e.Transport, e.Status, len(e.Tools), e.Reason}
		})
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Status == string(mcp.StateFailed) && e.StderrTail != "" {
			fmt.Fprintf(w, "\n%s stderr (last lines):\n  %s\n", e.Name, strings.ReplaceAll(e.StderrTail, "\n", "\n  "))
		}
	}
	return nil
}
