// Package agents reads what people package for their agents in the formats they already
// use: skills (the agentskills specification's SKILL.md folders) and slash command templates.
//
// The contract:
//
//   - Skills are folders holding SKILL.md, read from <folder>/.loopdesk/skills/,
//     <folder>/.claude/skills/, <folder>/.agents/skills/ and $XDG_CONFIG_HOME/loopdesk/skills/,
//     in that order (a name defined twice keeps the first). SKILL.md starts with YAML front
//     matter: name (at most 64 characters: lowercase letters, digits and single hyphens, not
//     first or last, equal to the folder's name), description (1 to 1024 characters),
//     optional allowed-tools (a space-separated string, Claude Code's comma-separated string
//     or a list; allowed.go). Skill.Grants turns them into tools.Grants: the tools a skill
//     pre-approves once load_skill has loaded it in the session, only where the approval mode
//     alone would ask (rules, hooks, the deny/review/sandboxed modes and plan mode still win).
//     A skill that breaks any of this is returned with Error saying why, never
//     dropped: the person sees it, the model does not.
//   - Prompt lists each valid skill's name and description for the system prompt. The
//     load_skill tool ({"name", "file"?}) returns a skill's body, or a file of its folder (never
//     one outside it); it reads the folders afresh on every call. Its call and result are rows.
//   - Command templates are <folder>/.loopdesk/commands/*.md, <folder>/.claude/commands/*.md and
//     $XDG_CONFIG_HOME/loopdesk/commands/*.md (subfolders too, named by the file: Claude Code's
//     namespaces); a name defined twice keeps the first; optional front matter description and
//     argument-hint. /<name> ARGS sends Expand(ARGS): the body with $ARGUMENTS replaced by
//     ARGS and $1..$9 by its words; a body without placeholders gets ARGS appended.
//
// Agent definitions, in the format people already have (Claude Code's
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
