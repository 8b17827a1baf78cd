package loop

// The runner's part of skills and slash commands (backend/agents).

// Skills lists the skills of a folder for the system prompt (agents.Catalog): "" when it
// has none.
type Skills interface {
	Prompt(folder string) string
}

// commandRow is the prompt of a run started from a slash command: a user row that also
// records the command it was expanded from.
type commandRow struct {
	UserRow
	Command string
}

// withSkills appends the folder's skills to the run's system prompt, read afresh for each
// run like the instruction files.
func (rn *run) withSkills() {
	if rn.r.cfg.Skills == nil {
		return
	}
	list := rn.r.cfg.Skills.Prompt(rn.root)
	if list == "" {
		return
	}
	if rn.system != "" {
		rn.system += "\n\n"
	}
	rn.system += list
	rn.ctxEst += EstimateTokens(list)
}
