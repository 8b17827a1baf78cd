package desktop

import (
	"fmt"

	"github.com/loopdesk/loopdesk/backend/agents"
)

// Settings → Skills: the skills of the session's folder and the person's own, and the trust
// a project skill needs before its allowed-tools pre-approve anything (docs/skills.md).

// SkillView is one skill as Settings → Skills shows it.
type SkillView struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Path         string   `json:"path"`
	Error        string   `json:"error"`
	AllowedTools []string `json:"allowed_tools"`
	// Trust is "personal", "trusted", "untrusted" or "changed" (trusted once, edited since);
	// SHA256 is the SKILL.md's, the hash a Trust click sends back.
	Trust  agents.TrustLevel `json:"trust"`
	SHA256 string            `json:"sha256"`
	Body   string            `json:"body"`
}

// Skills lists the skills of the session's folder ("" for the person's own only), with their
// trust.
func (h *Settings) Skills(sessionID string) ([]SkillView, error) {
	folder, err := h.folderOf(sessionID)
	if err != nil {
		return nil, err
	}
	ctx := h.c.context()
	out := []SkillView{}
	for _, s := range agents.WithTrust(ctx, h.c.db, agents.Skills(h.c.instructionsDir, folder)) {
		out = append(out, SkillView{Name: s.Name, Description: s.Description, Path: s.Path, Error: s.Error,
			AllowedTools: s.AllowedTools, Trust: s.Trust, SHA256: s.SHA256, Body: s.Body})
	}
	return out, nil
}

// TrustSkill trusts the project skill whose SKILL.md is path, as the person saw it: sha256 is
// the hash shown; if the file changed since, nothing is trusted and the error says so. Only a
// skill of the session's folder can be trusted here.
func (h *Settings) TrustSkill(sessionID, path, sha256 string) ([]SkillView, error) {
	if sha256 == "" {
		return nil, fmt.Errorf("%w: the hash of the skill being trusted is required", ErrInvalidInput)
	}
	if err := h.projectSkill(sessionID, path); err != nil {
		return nil, err
	}
	if _, err := agents.TrustSkill(h.c.context(), h.c.db, path, sha256); err != nil {
		return nil, err
	}
	return h.Skills(sessionID)
}

// UntrustSkill forgets the trust in the project skill whose SKILL.md is path.
func (h *Settings) UntrustSkill(sessionID, path string) ([]SkillView, error) {
	if err := h.projectSkill(sessionID, path); err != nil {
		return nil, err
	}
	if _, err := agents.UntrustSkill(h.c.context(), h.c.db, path); err != nil {
		return nil, err
	}
	return h.Skills(sessionID)
}

// projectSkill checks that path is the SKILL.md of one of the session folder's skills: the
// page names a skill it listed, never an arbitrary file.
func (h *Settings) projectSkill(sessionID, path string) error {
	folder, err := h.folderOf(sessionID)
	if err != nil {
		return err
	}
	for _, s := range agents.Skills("", folder) {
		if s.Project && s.Path == path {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is not a skill of this session's folder", ErrInvalidInput, path)
}

// folderOf is the session's folder, symbolic links resolved as the runner's workspace root
// ("" for no session).
func (h *Settings) folderOf(sessionID string) (string, error) {
	if sessionID == "" {
		return "", nil
	}
	s, err := h.c.db.GetSession(h.c.context(), sessionID)
	if err != nil {
		return "", err
	}
	if s.Workspace == "" {
		return "", nil
	}
	folder, err := agents.TrustPath(s.Workspace)
	if err != nil {
		return s.Workspace, nil // a folder that is gone lists no project skills
	}
	return folder, nil
}
