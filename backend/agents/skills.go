package agents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
	"gopkg.in/yaml.v3"
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
	// Project: the skill is the folder's (.loopdesk/skills, .claude/skills, .agents/skills),
	// written by the repository rather than the person; SHA256 is the hex sha256 of its
	// SKILL.md's bytes, the exact file the person trusts or not.
	Project bool
	SHA256  string
	// Trust is set by WithTrust: whether the skill's allowed-tools may pre-approve calls.
	Trust TrustLevel
}

// TrustLevel says whether a skill's allowed-tools pre-approve anything.
type TrustLevel string

const (
	// TrustPersonal: a skill of the person's own config folder: its grants apply.
	TrustPersonal TrustLevel = "personal"
	// TrustTrusted: a project skill the person trusted exactly as it is now.
	TrustTrusted TrustLevel = "trusted"
	// TrustUntrusted: a project skill the person has not trusted: its grants apply to nothing.
	TrustUntrusted TrustLevel = "untrusted"
	// TrustChanged: a project skill trusted once, edited since: untrusted until trusted again.
	TrustChanged TrustLevel = "changed"
)

// Valid reports whether the skill may be offered to the model.
func (s Skill) Valid() bool { return s.Error == "" }

// Skills reads every skill of folder (its .loopdesk/skills, .claude/skills and
// .agents/skills) and of the personal config folder's skills/, in that order. folder or
// personalDir may be "". It never fails: what cannot be read is a skill with an Error.
func Skills(personalDir, folder string) []Skill {
	var out []Skill
	seen := map[string]string{}
	for _, r := range roots(personalDir, folder, projectSkillDirs, "skills") {
		root := r.dir
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
			s.Project = r.project
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
	named        `yaml:",inline"`
	AllowedTools yaml.Node `yaml:"allowed-tools"`
}

// decodeFrontMatter splits a file's bytes with split and decodes the front matter into an F,
// the body beside it. The error is split's (with the body when split gives one), or the YAML's
// after yamlPrefix.
func decodeFrontMatter[F any](b []byte, split func([]byte) ([]byte, string, error), yamlPrefix string) (F, string, error) {
	var fm F
	head, body, err := split(b)
	if err != nil {
		return fm, body, err
	}
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return fm, body, errors.New(yamlPrefix + err.Error())
	}
	return fm, body, nil
}

// named is what a skill's and an agent's front matter both start with.
type named struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

func readSkill(dir string) Skill {
	s := Skill{Path: filepath.Join(dir, SkillFile), Dir: dir}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		s.Error = "no readable " + SkillFile + ": " + err.Error()
		return s
	}
	sum := sha256.Sum256(b)
	s.SHA256 = hex.EncodeToString(sum[:])
	fm, body, err := decodeFrontMatter[frontMatter](b, splitFrontMatter, "front matter is not valid YAML: ")
	if err != nil {
		s.Error = err.Error()
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

// TrustSource reads the person's trust in skill files (*store.DB). An error other than
// store.ErrNotFound makes every project skill untrusted (fail closed).
type TrustSource interface {
	SkillTrustOf(ctx context.Context, path string) (store.SkillTrust, error)
}

// TrustKeeper records trust in skill files (*store.DB).
type TrustKeeper interface {
	TrustSource
	TrustSkill(ctx context.Context, path, sha256 string) (store.SkillTrust, error)
	UntrustSkill(ctx context.Context, path string) error
}

// TrustPath is the form a skill file's path is trusted under: absolute, symbolic links
// resolved, so the same file reached two ways shares one trust.
func TrustPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("skill file %s: %w", path, err)
	}
	return abs, nil
}

// WithTrust sets each skill's Trust: personal skills are the person's own; a project skill is
// trusted only when the person trusted its SKILL.md with exactly these bytes. ts may be nil
// (nothing is trusted).
func WithTrust(ctx context.Context, ts TrustSource, skills []Skill) []Skill {
	for i := range skills {
		s := &skills[i]
		if !s.Project {
			s.Trust = TrustPersonal
			continue
		}
		s.Trust = TrustUntrusted
		if ts == nil || s.SHA256 == "" {
			continue
		}
		path, err := TrustPath(s.Path)
		if err != nil {
			continue
		}
		t, err := ts.SkillTrustOf(ctx, path)
		switch {
		case err != nil:
		case t.SHA256 == s.SHA256:
			s.Trust = TrustTrusted
		default:
			s.Trust = TrustChanged
		}
	}
	return skills
}

// TrustSkill records the person's trust in the project skill at path (its SKILL.md or its
// folder) as the file is now; sha256, when not "", must be the hash the person was shown, or
// nothing is trusted (the person trusts what they saw, never what came after).
func TrustSkill(ctx context.Context, tk TrustKeeper, path, sha256 string) (Skill, error) {
	s, key, err := skillAt(path)
	if err != nil {
		return Skill{}, err
	}
	if sha256 != "" && sha256 != s.SHA256 {
		return Skill{}, fmt.Errorf("trust skill %s: the file changed since it was shown; review it again", s.Path)
	}
	if _, err := tk.TrustSkill(ctx, key, s.SHA256); err != nil {
		return Skill{}, err
	}
	s.Trust = TrustTrusted
	return s, nil
}

// UntrustSkill forgets the trust in the skill at path (its SKILL.md or its folder).
func UntrustSkill(ctx context.Context, tk TrustKeeper, path string) (Skill, error) {
	s, key, err := skillAt(path)
	if err != nil {
		return Skill{}, err
	}
	if err := tk.UntrustSkill(ctx, key); err != nil {
		return Skill{}, err
	}
	s.Trust = TrustUntrusted
	return s, nil
}

// skillAt reads the skill at path (a SKILL.md or the folder holding one) and the path its
// trust is kept under. A file that is not a valid skill cannot be trusted.
func skillAt(path string) (Skill, string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, SkillFile)
	}
	if filepath.Base(path) != SkillFile {
		return Skill{}, "", fmt.Errorf("skill %s: give a %s file or the folder holding one", path, SkillFile)
	}
	key, err := TrustPath(path)
	if err != nil {
		return Skill{}, "", err
	}
	s := readSkill(filepath.Dir(key))
	if !s.Valid() {
		return Skill{}, "", fmt.Errorf("skill %s is not valid: %s", key, s.Error)
	}
	s.Project = true
	return s, key, nil
}

// Catalog lists a folder's skills for the runner's system prompt (loop.Skills).
type Catalog struct {
	PersonalDir string // the loopdesk config folder holding skills/; "" for none
	// Trust is the person's trust in project skill files; nil trusts none of them.
	Trust TrustSource
}

// Prompt implements loop.Skills.
func (c Catalog) Prompt(folder string) string { return Prompt(Skills(c.PersonalDir, folder)) }

// Grants implements extend.SkillGrants: the grants of each valid skill of folder that has
// allowed-tools, by skill name. A project skill's grants are marked Untrusted unless the
// person trusted its SKILL.md as it is now: they approve nothing, and a call they would have
// covered says so.
func (c Catalog) Grants(ctx context.Context, folder string) map[string][]tools.Grant {
	out := map[string][]tools.Grant{}
	for _, s := range WithTrust(ctx, c.Trust, Skills(c.PersonalDir, folder)) {
		g := s.Grants()
		if !s.Valid() || len(g) == 0 {
			continue
		}
		if s.Trust != TrustPersonal && s.Trust != TrustTrusted {
			for i := range g {
				g[i].Untrusted = true
			}
		}
		out[s.Name] = g
	}
	return out
}
