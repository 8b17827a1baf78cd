package desktop

import (
	"github.com/loopdesk/loopdesk/backend/agents"
)

// AgentDefinitions lists the agent definitions a task call of the session can name (its
// folder's, the person's own and the built-in ones), the invalid and shadowed ones with their
// path and the reason, for Settings → Agents. "" lists the person's own and the built-in ones.
func (s *Settings) AgentDefinitions(sessionID string) ([]agents.Definition, error) {
	folder := ""
	if sessionID != "" {
		sess, err := s.c.db.GetSession(s.c.context(), sessionID)
		if err != nil {
			return nil, err
		}
		folder = sess.Workspace
	}
	return agents.Definitions(s.c.instructionsDir, folder), nil
}
