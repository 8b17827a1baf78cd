package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The runner's part of skills and slash commands (backend/agents).

// Skills lists the skills of a folder for the system prompt (agents.Catalog): "" when it
// has none.
type Skills interface {
	Prompt(folder string) string
}

// SkillGrants is what a Skills may also offer (agents.Catalog does): the calls each skill's
// allowed-tools pre-approve, by skill name. A skill's grants apply once the model has loaded
// it with load_skill in the session (docs/skills.md), only where approval mode ask alone would
// ask, and only when the skill is the person's or its file is trusted (tools.Grant).
type SkillGrants interface {
	Grants(ctx context.Context, folder string) map[string][]tools.Grant
}

// loadSkillTool is agents.LoadSkillName (the runner does not import agents).
const loadSkillTool = "load_skill"

// skillState is the run's view of its skills' grants: read with the skill list at run start,
// active once a load_skill call loaded the skill in this session. Approval workers read it.
type skillState struct {
	mu     sync.Mutex
	grants map[string][]tools.Grant
	active map[string]bool
}

// commandRow is the prompt of a run started from a slash command: a user row that also
// records the command it was expanded from.
type commandRow struct {
	UserRow
	Command string
}

// withSkills appends the folder's skills to the run's system prompt, read afresh for each
// run like the instruction files, and reads their grants.
func (rn *run) withSkills(ctx context.Context) {
	if rn.r.cfg.Skills == nil {
		return
	}
	if g, ok := rn.r.cfg.Skills.(SkillGrants); ok {
		if grants := g.Grants(ctx, rn.root); len(grants) > 0 {
			rn.skills.grants, rn.skills.active = grants, loadedSkills(rn.chunks)
		}
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

// loadedSkills are the skills a load_skill call of the session loaded (its instructions,
// with a result that is not an error). Only rows naming load_skill are decoded.
func loadedSkills(chunks []store.Chunk) map[string]bool {
	calls, loaded := map[string]string{}, map[string]bool{}
	marker := []byte(`"` + loadSkillTool + `"`)
	for _, c := range chunks {
		if !bytes.Contains(c.Payload, marker) {
			continue
		}
		switch c.Kind {
		case store.KindAssistant:
			var p store.AssistantPayload
			if json.Unmarshal(c.Payload, &p) == nil {
				for _, tc := range p.ToolCalls {
					if name := skillLoadedBy(tc.Name, tc.Arguments); name != "" {
						calls[tc.ID] = name
					}
				}
			}
		case store.KindToolResult:
			var p store.ToolResultPayload
			if json.Unmarshal(c.Payload, &p) == nil && !p.IsError && calls[p.CallID] != "" {
				loaded[calls[p.CallID]] = true
			}
		}
	}
	return loaded
}

// skillLoadedBy is the skill a call loads the instructions of, or "".
func skillLoadedBy(tool, arguments string) string {
	var args struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	if tool != loadSkillTool || json.Unmarshal([]byte(arguments), &args) != nil || (args.File != "" && args.File != "SKILL.md") {
		return ""
	}
	return args.Name
}

// skillLoaded marks the skill a successful load_skill call loaded as active (a worker calls
// it before the call's result is handed on, so the next turn's approvals see it).
func (rn *run) skillLoaded(c Call, res tools.Result) {
	name := skillLoadedBy(c.Name, c.Arguments)
	if name == "" || res.IsError {
		return
	}
	rn.skills.mu.Lock()
	defer rn.skills.mu.Unlock()
	if _, has := rn.skills.grants[name]; has {
		rn.skills.active[name] = true
	}
}

// skillGrants are the grants of the skills active now.
func (rn *run) skillGrants() []tools.Grant {
	rn.skills.mu.Lock()
	defer rn.skills.mu.Unlock()
	var out []tools.Grant
	for name := range rn.skills.active {
		out = append(out, rn.skills.grants[name]...)
	}
	return out
}
