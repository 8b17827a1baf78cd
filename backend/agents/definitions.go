package agents

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Definition is one agent a task call can name.
type Definition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is the file it was read from, or "builtin".
	Source string `json:"source"`
	// Tools are the tools it may use, in Loopdesk's names; nil: every tool of its parent.
	Tools []string `json:"tools"`
	// Model is the model its child session uses; "inherit": the parent's.
	Model    string `json:"model"`
	MaxTurns int    `json:"-"`
	// Prompt is its system prompt (the file's body).
	Prompt string `json:"-"`
	// Error says why the definition cannot be used; "" when it can.
	Error string `json:"error"`
}

// Valid reports whether the definition can be used.
func (d Definition) Valid() bool { return d.Error == "" }

// Inherit is the model of an agent that uses its parent's.
const Inherit = "inherit"

// BuiltinSource is the Source of the built-in agents.
const BuiltinSource = "builtin"

// projectAgentDirs are the folders of a workspace holding definitions, nearest first.
var projectAgentDirs = []string{".loopdesk/agents", ".claude/agents"}

var agentName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// claudeTools maps Claude Code's tool names to Loopdesk's, so its definitions work unchanged.
var claudeTools = map[string]string{
	"Read": "read_file", "Write": "write_file", "Edit": "edit_file", "MultiEdit": "edit_file",
	"Bash": "run_shell_command", "Glob": "find_files", "Grep": "search_text", "LS": "list_dir",
	"Task": "task", "Agent": "task",
}

// ReadOnlyTools are the built-in tools that change nothing: the explore agent's.
var ReadOnlyTools = []string{"read_file", "list_dir", "find_files", "search_text"}

// Builtins are the agents every folder has.
func Builtins() []Definition {
	return []Definition{{Name: "explore", Source: BuiltinSource, Model: Inherit, Tools: ReadOnlyTools,
		Description: "Explores the folder read-only (read, list, find, search) and reports what it found; for questions " +
			"about a codebase that need many files read.",
		Prompt: "You are an exploration agent working inside a folder. Use only the read-only tools to answer the task " +
			"you were given: find the relevant files, read what matters, and report concisely what you found, naming " +
			"files and line numbers. You cannot change anything."}}
}

// Definitions reads the definitions of folder and personalDir (the loopdesk config folder
// holding agents/; "" for none), nearest first, then the built-in ones. Shadowed and invalid
// definitions are returned with Error set.
func Definitions(personalDir, folder string) []Definition {
	var out []Definition
	for _, r := range roots(personalDir, folder, projectAgentDirs, "agents") {
		files, _ := filepath.Glob(filepath.Join(r.dir, "*.md")) // only a malformed pattern errs
		sort.Strings(files)
		for _, f := range files {
			out = append(out, readDefinition(f))
		}
	}
	out = append(out, Builtins()...)
	seen := map[string]string{}
	for i, d := range out {
		if d.Name == "" || !d.Valid() {
			continue
		}
		if first, dup := seen[d.Name]; dup {
			out[i].Error = "shadowed by " + first
			continue
		}
		seen[d.Name] = d.Source
	}
	return out
}

// Valid returns the usable definitions of defs.
func Valid(defs []Definition) []Definition {
	var out []Definition
	for _, d := range defs {
		if d.Valid() {
			out = append(out, d)
		}
	}
	return out
}

// agentFrontMatter is what a definition's front matter may hold.
type agentFrontMatter struct {
	named       `yaml:",inline"`
	Tools       yaml.Node `yaml:"tools"`
	Model       string    `yaml:"model"`
	MaxTurns    *int      `yaml:"max_turns"`
	ClaudeTurns *int      `yaml:"maxTurns"`
}

// readDefinition reads one file; what is wrong with it is its Error.
func readDefinition(path string) Definition {
	d := Definition{Source: path, Name: strings.TrimSuffix(filepath.Base(path), ".md")}
	b, err := os.ReadFile(path)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	fm, body, err := decodeFrontMatter[agentFrontMatter](b, splitAgentFile, "front matter: ")
	if err != nil {
		d.Error = err.Error()
		return d
	}
	d.Prompt = strings.TrimSpace(body)
	if err := fill(&d, fm); err != nil {
		d.Error = err.Error()
	}
	return d
}

// fill checks the front matter and copies it into d.
func fill(d *Definition, fm agentFrontMatter) error {
	if fm.Name == "" {
		return fmt.Errorf("name is required")
	}
	d.Name = fm.Name
	if !agentName.MatchString(fm.Name) {
		return fmt.Errorf("name %q: use lowercase letters, digits and hyphens", fm.Name)
	}
	d.Description = strings.TrimSpace(fm.Description)
	if d.Description == "" {
		return fmt.Errorf("description is required")
	}
	d.Model = strings.TrimSpace(fm.Model)
	switch d.Model {
	case "", Inherit, "sonnet", "opus", "haiku":
		d.Model = Inherit // Claude Code's aliases name Anthropic's families, not a model this session has
	}
	turns := fm.MaxTurns
	if turns == nil {
		turns = fm.ClaudeTurns
	}
	if turns != nil {
		if *turns < 1 {
			return fmt.Errorf("max_turns %d: want a positive number", *turns)
		}
		d.MaxTurns = *turns
	}
	tools, err := agentTools(fm.Tools)
	d.Tools = tools
	return err
}

// agentTools reads tools: absent (nil: all), a YAML list, or a comma-separated string.
func agentTools(n yaml.Node) ([]string, error) {
	var names []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		for _, s := range strings.Split(n.Value, ",") {
			names = append(names, s)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("tools: want a list of names or a comma-separated string")
			}
			names = append(names, c.Value)
		}
	default:
		return nil, fmt.Errorf("tools: want a list of names or a comma-separated string")
	}
	out := []string{}
	for _, s := range names {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if mapped, ok := claudeTools[s]; ok {
			s = mapped
		}
		if !containsName(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func containsName(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitAgentFile cuts "---\n<yaml>\n---\n<body>".
func splitAgentFile(b []byte) ([]byte, string, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return nil, "", fmt.Errorf("no front matter (the file must start with a --- line)")
	}
	rest := s[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, "", fmt.Errorf("front matter is not closed by a --- line")
	}
	body := rest[end+4:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	return []byte(rest[:end]), body, nil
}

// Allows reports whether tool (a Loopdesk tool name) is one the agent may use: every tool
// when Tools is nil, else a listed name or an mcp__server__* pattern.
func (d Definition) Allows(tool string) bool {
	if d.Tools == nil {
		return true
	}
	for _, t := range d.Tools {
		if t == tool || (strings.HasSuffix(t, "__*") && strings.HasPrefix(tool, strings.TrimSuffix(t, "*"))) {
			return true
		}
	}
	return false
}
