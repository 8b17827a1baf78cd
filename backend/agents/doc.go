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
//     optional allowed-tools (a space-separated string or a list; read and shown, not
//     enforced). A skill that breaks any of this is returned with Error saying why, never
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
// Nothing here keeps state or runs anything: every function reads the files it is given.
package agents
