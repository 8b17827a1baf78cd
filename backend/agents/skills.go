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
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// The skill folders, in the order they are read: a name found twice keeps the first.
var projectSkillDirs = []string{".loopdesk/skills", ".claude/skills", ".agents/skills"}

// SkillFile is the file that makes a folder a skill.
const SkillFile = "SKILL.md"

// Limits of the agentskills specification.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
)

// skillName: lowercase letters, digits and hyphens, no hyphen first, last or doubled.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Skill is one skill folder. A skill that breaks the specification is kept, with Error
// saying why, so the person sees it instead of it vanishing; only valid skills are offered
// to the model.
type Skill struct {
	Name         string
	Description  string
	AllowedTools []string
	// Path is the SKILL.md file; Dir its folder (what load_skill may read from).
	Path  string
	Dir   string
	Body  string
	Error string
}

// Valid reports whether the skill may be offered to the model.
func (s Skill) Valid() bool { return s.Error == "" }

// Skills reads every skill of folder (its .loopdesk/skills, .claude/skills and
// .agents/skills) and of the personal config folder's skills/, in that order. folder or
// personalDir may be "". It never fails: what cannot be read is a skill with an Error.
func Skills(personalDir, folder string) []Skill {
	var roots []string
	if folder != "" {
		for _, d := range projectSkillDirs {
			roots = append(roots, filepath.Join(folder, d))
		}
	}
	if personalDir != "" {
		roots = append(roots, filepath.Join(personalDir, "skills"))
	}
	var out []Skill
	seen := map[string]string{}
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				out = append(out, Skill{Path: root, Dir: root, Error: "cannot read the skills folder: " + err.Error()})
			}
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue // a stray file beside the skill folders
			}
			s := readSkill(dir)
			if s.Valid() {
				if first, dup := seen[s.Name]; dup {
					s.Error = "a skill named " + s.Name + " is already defined in " + first
				} else {
					seen[s.Name] = s.Path
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// frontMatter is a SKILL.md header. allowed-tools is a space-separated string in the
// specification; Claude Code also accepts a list.
type frontMatter struct {
	Name         string    `yaml:"name"`
	Description  string    `yaml:"description"`
	AllowedTools yaml.Node `yaml:"allowed-tools"`
}

func readSkill(dir string) Skill {
	s := Skill{Path: filepath.Join(dir, SkillFile), Dir: dir}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		s.Error = "no readable " + SkillFile + ": " + err.Error()
		return s
	}
	head, body, err := splitFrontMatter(b)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	var fm frontMatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		s.Error = "front matter is not valid YAML: " + err.Error()
		return s
	}
	s.Name, s.Description, s.Body = fm.Name, strings.TrimSpace(fm.Description), body
	s.AllowedTools, err = toolList(fm.AllowedTools)
	if err == nil {
		err = validate(s, filepath.Base(dir))
	}
	if err != nil {
		s.Error = err.Error()
	}
	return s
}

// validate applies the agentskills specification to name and description.
func validate(s Skill, folder string) error {
	switch {
	case s.Name == "":
		return fmt.Errorf("front matter has no name")
	case utf8.RuneCountInString(s.Name) > MaxNameLen:
		return fmt.Errorf("name %q is longer than %d characters", s.Name, MaxNameLen)
	case !skillName.MatchString(s.Name):
		return fmt.Errorf("name %q may hold only lowercase letters, digits and single hyphens, not first or last", s.Name)
	case s.Name != folder:
		return fmt.Errorf("name %q differs from its folder %q", s.Name, folder)
	case s.Description == "":
		return fmt.Errorf("front matter has no description")
	case utf8.RuneCountInString(s.Description) > MaxDescriptionLen:
		return fmt.Errorf("description is longer than %d characters", MaxDescriptionLen)
	}
	return nil
}

func toolList(n yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		return splitAllowed(n.Value), nil
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return nil, fmt.Errorf("allowed-tools: %w", err)
		}
		var out []string
		for _, e := range l {
			out = append(out, splitAllowed(e)...) // a list item may itself be "Read, Grep"
		}
		return out, nil
	}
	return nil, fmt.Errorf("allowed-tools must be a space-separated string or a list")
}

// errNoFrontMatter: the file does not start with a --- line. A skill needs front matter
// (its name and description live there); a command template may go without.
var errNoFrontMatter = errors.New("no front matter (the file must start with a --- line)")

// splitFrontMatter cuts "---\n<yaml>---\n<body>".
func splitFrontMatter(b []byte) ([]byte, string, error) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(b), "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, text, errNoFrontMatter
	}
	lines := strings.SplitAfter(text[4:], "\n")
	var head strings.Builder
	for i, l := range lines {
		if strings.TrimRight(l, "\n") == "---" {
			return []byte(head.String()), strings.Join(lines[i+1:], ""), nil
		}
		head.WriteString(l)
	}
	return nil, text, fmt.Errorf("front matter is not closed by a --- line")
}

// Prompt is the part of the system prompt that lists the valid skills; "" when there are
// none. The model loads a skill's instructions with load_skill when a task calls for it.
func Prompt(skills []Skill) string {
	var valid []Skill
	for _, s := range skills {
		if s.Valid() {
			valid = append(valid, s)
		}
	}
	if len(valid) == 0 {
		return ""
	}
	sort.SliceStable(valid, func(i, j int) bool { return valid[i].Name < valid[j].Name })
	var b strings.Builder
	b.WriteString("[loopdesk] Skills are available: packaged instructions for particular tasks. When a task matches " +
		"a skill's description, call load_skill with its name first and follow what it says; load a file it " +
		"mentions with load_skill's file argument.\n")
	for _, s := range valid {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, strings.ReplaceAll(s.Description, "\n", " "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// Catalog lists a folder's skills for the runner's system prompt (loop.Skills).
type Catalog struct {
	PersonalDir string // the loopdesk config folder holding skills/; "" for none
}

// Prompt implements loop.Skills.
func (c Catalog) Prompt(folder string) string { return Prompt(Skills(c.PersonalDir, folder)) }

// Grants implements loop.SkillGrants: the grants of each valid skill of folder that has
// allowed-tools, by skill name.
func (c Catalog) Grants(folder string) map[string][]tools.Grant {
	out := map[string][]tools.Grant{}
	for _, s := range Skills(c.PersonalDir, folder) {
		if g := s.Grants(); s.Valid() && len(g) > 0 {
			out[s.Name] = g
		}
	}
	return out
}
