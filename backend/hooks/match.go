package hooks

import (
	"encoding/json"
	"regexp"
	"strings"
)

// claudeNames are Claude Code's names for Loopdesk's built-in tools: matchers written for
// Claude Code ("Bash", "Edit|Write") match them, and hooks see these names in tool_name.
var claudeNames = map[string]string{
	"run_shell_command": "Bash",
	"read_file":         "Read",
	"write_file":        "Write",
	"edit_file":         "Edit",
	"find_files":        "Glob",
	"search_text":       "Grep",
	"list_dir":          "LS",
}

// ClaudeName is Claude Code's name for a built-in tool, or "" when it has none.
func ClaudeName(tool string) string { return claudeNames[tool] }

// simpleMatcher is a matcher made only of names and "|": compared name by name, exactly,
// as Claude Code does ("Edit|Write" never matches "NotebookEdit").
var simpleMatcher = regexp.MustCompile(`^[A-Za-z0-9_|-]+$`)

// compileMatcher returns nil for a matcher that matches everything ("" or "*").
func compileMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" || simpleMatcher.MatchString(m) {
		return nil, nil
	}
	return regexp.Compile(m)
}

// Matches reports whether matcher selects subject or any of its aliases. Simple matchers
// compare whole names; others are regular expressions searched in the name (Claude Code's
// "Notebook.*", "mcp__github__.*").
func Matches(matcher string, subject ...string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if simpleMatcher.MatchString(matcher) {
		for _, name := range strings.Split(matcher, "|") {
			for _, s := range subject {
				if s != "" && name == s {
					return true
				}
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return false // Load refuses such a file; a hook built by hand just never matches
	}
	for _, s := range subject {
		if s != "" && re.MatchString(s) {
			return true
		}
	}
	return false
}

// claudeInput adds Claude Code's field names to a built-in tool's arguments, keeping
// Loopdesk's: read_file, write_file and edit_file get "file_path" beside "path". Arguments
// that are not a JSON object are passed as they are.
func claudeInput(tool string, args string) json.RawMessage {
	raw := json.RawMessage(args)
	if !json.Valid(raw) {
		b, _ := json.Marshal(args) // a string always marshals
		return b
	}
	switch tool {
	case "read_file", "write_file", "edit_file":
	default:
		return raw
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if p, ok := m["path"]; ok {
		if _, has := m["file_path"]; !has {
			m["file_path"] = p
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

// loopdeskInput turns a hook's updatedInput back into the tool's own arguments: Claude
// Code's "file_path" becomes "path" (which it replaces). The result is what the tool
// validates against its schema before it runs.
func loopdeskInput(tool string, in json.RawMessage) string {
	switch tool {
	case "read_file", "write_file", "edit_file":
	default:
		return string(in)
	}
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return string(in)
	}
	if p, ok := m["file_path"]; ok {
		m["path"] = p
		delete(m, "file_path")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return string(in)
	}
	return string(b)
}
