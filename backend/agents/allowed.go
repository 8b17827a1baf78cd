package agents

import (
	"strings"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// A skill's allowed-tools: the tools it pre-approves while it is active (loaded with
// load_skill in the session). docs/skills.md lists the forms accepted; the runner hands the
// grants to the approver, which lets them answer only what the approval mode would ask about.

// splitAllowed cuts an allowed-tools string into entries at spaces and commas outside
// parentheses: the specification's "Bash(git:*) Read" and Claude Code's "Read, Grep,
// Bash(git status)" both work.
func splitAllowed(s string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

// Grants are the calls the skill pre-approves while it is active. Entries naming no tool
// Loopdesk has (Claude Code's WebFetch, Task, ...) grant nothing.
func (s Skill) Grants() []tools.Grant {
	var out []tools.Grant
	for _, entry := range s.AllowedTools {
		out = append(out, grantsOf(entry, "skill:"+s.Name)...)
	}
	return out
}

// grantsOf reads one entry: a tool name (Claude Code's or Loopdesk's, "mcp__server__tool",
// "mcp__server" for all of a server's tools), optionally with a specifier in parentheses:
// for Bash a command ("git status"), a pattern ("git diff *") or Claude Code's prefix form
// ("git:*": "git" alone or followed by arguments); for file tools a path pattern ("src/**").
func grantsOf(entry, by string) []tools.Grant {
	name, spec := strings.TrimSpace(entry), ""
	if i := strings.IndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		name, spec = strings.TrimSpace(name[:i]), strings.TrimSpace(name[i+1:len(name)-1])
	}
	tool := name
	switch {
	case claudeTools[name] != "":
		tool = claudeTools[name] // the same names as in agent definitions
	case strings.HasPrefix(name, "mcp__") && strings.Count(name, "__") == 1:
		tool = name + "__*" // Claude Code: "mcp__server" covers every tool of the server
	case !knownTool(name):
		return nil
	}
	if spec == "*" {
		spec = ""
	}
	g := tools.Grant{Tool: tool, Pattern: spec, By: by, Entry: entry}
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok && tool == "run_shell_command" {
		g.Pattern = prefix
		more := g
		more.Pattern = prefix + " *"
		return []tools.Grant{g, more}
	}
	if tool != "run_shell_command" {
		g.Pattern = strings.TrimPrefix(spec, "./")
	}
	return []tools.Grant{g}
}

// knownTool: a Loopdesk tool name written as such (built-in, load_skill, task, update_plan)
// or an MCP tool. Anything else is another agent's tool Loopdesk does not have.
func knownTool(name string) bool {
	if strings.HasPrefix(name, "mcp__") {
		return true
	}
	return name != "" && strings.ToLower(name) == name && !strings.ContainsAny(name, " ()")
}
