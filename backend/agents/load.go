package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// LoadSkillName is the tool's name as the model sees it.
const LoadSkillName = "load_skill"

// maxSkillFile bounds what load_skill returns of one file.
const maxSkillFile = 256 << 10

// LoadSkill is the load_skill tool: {"name", "file" (optional)} returns the skill's
// instructions (the body of its SKILL.md) or one file of its folder. It reads the skills of
// the run's workspace and of PersonalDir afresh on every call, and never reads outside the
// skill's folder. Its call and result are rows like any tool's, so a skill that loaded is
// visible, and one that did not is too.
type LoadSkill struct {
	PersonalDir string // the loopdesk config folder holding skills/; "" for none
}

var _ tools.Tool = LoadSkill{}

type loadSkillArgs struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
}

// Name implements tools.Tool.
func (LoadSkill) Name() string { return LoadSkillName }

// Description implements tools.Tool.
func (LoadSkill) Description() string {
	return "Load a skill's instructions (the skills are listed in the system prompt), or a file of its folder."
}

// Schema implements tools.Tool.
func (LoadSkill) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","minLength":1,"description":"The skill's name as listed in the system prompt"},` +
		`"file":{"type":"string","description":"A file of the skill's folder to read instead of its instructions, relative to the folder (e.g. references/api.md)"}},` +
		`"required":["name"],"additionalProperties":false}`)
}

// ReadOnly implements tools.Tool.
func (LoadSkill) ReadOnly() bool { return true }

// Execute implements tools.Tool.
func (l LoadSkill) Execute(_ context.Context, ws *tools.Workspace, raw json.RawMessage, _ func(string)) tools.Result {
	var args loadSkillArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return tools.Result{Content: "load_skill: " + err.Error(), IsError: true}
	}
	folder := ""
	if ws != nil {
		folder = ws.Root()
	}
	var names []string
	for _, s := range Skills(l.PersonalDir, folder) {
		if s.Name != args.Name {
			if s.Valid() {
				names = append(names, s.Name)
			}
			continue
		}
		if !s.Valid() {
			return tools.Result{Content: fmt.Sprintf("skill %s cannot be loaded: %s (%s)", s.Name, s.Error, s.Path), IsError: true}
		}
		if args.File == "" {
			return tools.Result{Content: fmt.Sprintf("Skill %s (%s):\n\n%s", s.Name, s.Dir, s.Body)}
		}
		text, err := readSkillFile(s.Dir, args.File)
		if err != nil {
			return tools.Result{Content: fmt.Sprintf("skill %s: %v", s.Name, err), IsError: true}
		}
		return tools.Result{Content: text}
	}
	return tools.Result{Content: fmt.Sprintf("no skill named %q; the skills are: %s", args.Name, orNone(names)), IsError: true}
}

// readSkillFile reads rel inside dir; a path that leaves the folder (.., absolute, or a
// symbolic link pointing out) is refused.
func readSkillFile(dir, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("file %q: give a path relative to the skill's folder", rel)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(root, filepath.Clean(rel)))
	if err != nil {
		return "", fmt.Errorf("file %q: %w", rel, err)
	}
	if r, err := filepath.Rel(root, p); err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", fmt.Errorf("file %q is outside the skill's folder", rel)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("file %q: %w", rel, err)
	}
	if len(b) > maxSkillFile {
		return string(b[:maxSkillFile]) + "\n[cut: the file is longer than 256 KB]", nil
	}
	return string(b), nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
