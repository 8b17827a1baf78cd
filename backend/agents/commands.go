package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The command template folders, in the order they are read: a name found twice keeps the first.
var projectCommandDirs = []string{".loopdesk/commands", ".claude/commands"}

// Command is a slash command template: <name>.md whose body is sent as the message, with
// $ARGUMENTS replaced by what the person typed after /<name>. A template whose front matter
// cannot be read is kept with Error, so the palette can say why it is not offered.
type Command struct {
	Name         string
	Description  string
	ArgumentHint string
	Body         string
	Path         string
	Error        string
}

type commandFrontMatter struct {
	Description  string    `yaml:"description"`
	ArgumentHint yaml.Node `yaml:"argument-hint"`
}

// hint reads argument-hint as written: Claude Code's own examples write it unquoted as
// "[pr-number]", which YAML reads as a list.
func hint(n yaml.Node) string {
	if n.Kind != yaml.SequenceNode {
		return n.Value
	}
	parts := make([]string, len(n.Content))
	for i, c := range n.Content {
		parts[i] = c.Value
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Commands reads the command templates of folder (.loopdesk/commands, .claude/commands) and
// of the personal config folder's commands/, in that order, each list sorted by name.
func Commands(personalDir, folder string) []Command {
	var out []Command
	seen := map[string]string{}
	for _, r := range roots(personalDir, folder, projectCommandDirs, "commands") {
		for _, p := range commandFiles(r.dir) {
			c := readCommand(p)
			if c.Error == "" {
				if first, dup := seen[c.Name]; dup {
					c.Error = "a command named " + c.Name + " is already defined in " + first
				} else {
					seen[c.Name] = p
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// commandFiles lists root's *.md files, its subfolders' too (Claude Code's namespaces:
// commands/git/commit.md is /commit), top level first, each level by name.
func commandFiles(root string) []string {
	var top, nested []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // a missing or unreadable folder has no commands
		case d.IsDir() || !strings.HasSuffix(d.Name(), ".md"):
			return nil
		case filepath.Dir(p) == root:
			top = append(top, p)
		default:
			nested = append(nested, p)
		}
		return nil
	})
	sort.Strings(top)
	sort.Strings(nested)
	return append(top, nested...)
}

func readCommand(path string) Command {
	c := Command{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.Error = err.Error()
		}
		return c
	}
	fm, body, err := decodeFrontMatter[commandFrontMatter](b, splitFrontMatter, "front matter is not valid YAML: ")
	switch {
	case errors.Is(err, errNoFrontMatter):
		c.Body = body
		return c
	case err != nil:
		c.Error = err.Error()
		return c
	}
	c.Description, c.ArgumentHint, c.Body = fm.Description, hint(fm.ArgumentHint), body
	return c
}

// placeholder matches $ARGUMENTS and $1 ... $9 (Claude Code's positional arguments).
var placeholder = regexp.MustCompile(`\$ARGUMENTS|\$[1-9]`)

// Expand is the message a command sends: its body with $ARGUMENTS replaced by args, and $1
// ... $9 by the words of args (a missing word becomes ""). A body that mentions neither gets
// args appended on a line of their own, so nothing the person typed is lost.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	body := strings.TrimSpace(c.Body)
	if !placeholder.MatchString(body) {
		if args == "" {
			return body
		}
		return body + "\n\n" + args
	}
	words := strings.Fields(args)
	// One pass, so text the person typed is never itself expanded.
	return placeholder.ReplaceAllStringFunc(body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		if i := int(m[1] - '1'); i < len(words) {
			return words[i]
		}
		return ""
	})
}

// ErrNoCommand: the text names no command template or valid skill.
var ErrNoCommand = errors.New("no command or skill of that name")

// Expand turns "/name args" into the message it sends: a command template's body with its
// arguments, or a valid skill's instructions followed by them (a skill's text is sent as
// written, so "$1" in its examples stays). command is "/name". Text that is not "/name ..."
// or names nothing returns an error wrapping ErrNoCommand.
func Expand(personalDir, folder, text string) (prompt, command string, err error) {
	name, args, _ := strings.Cut(strings.TrimSpace(text), " ")
	if !strings.HasPrefix(name, "/") || len(name) < 2 {
		return "", "", ErrNoCommand
	}
	name = name[1:]
	for _, c := range Commands(personalDir, folder) {
		if c.Name == name && c.Error == "" {
			if p := c.Expand(args); p != "" {
				return p, "/" + name, nil
			}
			return "", "", fmt.Errorf("command /%s has no text (%s)", name, c.Path)
		}
	}
	for _, s := range Skills(personalDir, folder) {
		if s.Name == name && s.Valid() {
			p := strings.TrimSpace(s.Body)
			if args = strings.TrimSpace(args); args != "" {
				p += "\n\n" + args
			}
			return p, "/" + name, nil
		}
	}
	return "", "", fmt.Errorf("/%s: %w", name, ErrNoCommand)
}
