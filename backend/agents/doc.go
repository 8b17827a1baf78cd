// Package agents reads agent definitions in the format people already have (Claude Code's
// .claude/agents/*.md): Markdown files whose YAML front matter names the agent and says what
// it may do, the body being its system prompt. A task call (backend/loop) names one to run a
// child session with that prompt, those tools and that model.
//
// The contract (definitions.go):
//
//   - Definitions are read from <folder>/.loopdesk/agents/*.md, <folder>/.claude/agents/*.md
//     and $XDG_CONFIG_HOME/loopdesk/agents/*.md, in that order, then the built-in ones
//     (explore). The nearest wins on a name clash; the others are returned with Error saying
//     which file shadows them.
//   - Front matter: name (lowercase letters, digits and hyphens) and description (required);
//     tools (a YAML list or Claude Code's comma-separated string; built-in names,
//     mcp__server__tool, mcp__server__*, or Claude Code's names such as Read, Grep, Bash, which
//     map to Loopdesk's); model (a model name, or inherit); max_turns or Claude Code's maxTurns.
//     Without tools the agent has every tool of its parent; with tools, only those it names
//     (a list narrows, never widens). "task" in tools lets the agent start children itself.
//   - A file that breaks any of this is returned with Error (the path is its Source), never
//     dropped and never an error of the whole load: the person sees it, the model does not.
//
// Nothing here keeps state or runs anything: every function reads the files it is given.
package agents
