package extend

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// SkillGrants gives the calls each skill's allowed-tools pre-approve, by skill name
// (agents.Catalog does, trust-checked: a project skill grants nothing until the person
// trusts its SKILL.md).
type SkillGrants interface {
	Grants(ctx context.Context, folder string) map[string][]tools.Grant
}

// Skills pre-approves what the skills loaded in the session grant: a skill's grants apply
// once the model has loaded it with load_skill in the session (docs/skills.md), only where
// approval mode ask alone would ask (tools.Grant). The grants are read as the run starts;
// the skills loaded are read from the session's rows then, and a load_skill call that
// succeeds during the run adds its skill from the next call on.
func Skills(src SkillGrants) loop.Extension {
	return func(ctx context.Context, run loop.RunInfo, next loop.Ports) loop.Ports {
		grants := src.Grants(ctx, run.Workspace.Root())
		if len(grants) == 0 {
			return next
		}
		s := &skills{grants: grants, active: loadedSkills(run.Rows)}
		approve := next.Approver
		next.Approver = loop.ApproverFunc(func(ctx context.Context, req tools.Request) (tools.Decision, error) {
			req.Grants = s.granted()
			return approve.Request(ctx, req)
		})
		next.Tools = resultsThen{next.Tools, s.markLoaded}
		return next
	}
}

// skills is one run's view of its skills' grants; approvals and tool calls read it
// concurrently.
type skills struct {
	grants map[string][]tools.Grant
	mu     sync.Mutex
	active map[string]bool
}

// granted are the grants of the skills active now.
func (s *skills) granted() []tools.Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tools.Grant
	for name := range s.active {
		out = append(out, s.grants[name]...)
	}
	return out
}

// markLoaded marks the skill a successful load_skill call loaded as active, before the
// call's result is handed on, so the next turn's approvals see it.
func (s *skills) markLoaded(_ context.Context, call tools.Call, res *tools.Result) {
	if name := skillLoadedBy(call.Name, call.Arguments); name != "" && !res.IsError {
		s.mu.Lock()
		if _, has := s.grants[name]; has {
			s.active[name] = true
		}
		s.mu.Unlock()
	}
}

// loadedSkills are the skills a load_skill call of the session loaded (its instructions,
// with a result that is not an error). Only rows naming load_skill are decoded.
func loadedSkills(chunks []store.Chunk) map[string]bool {
	calls, loaded := map[string]string{}, map[string]bool{}
	marker := []byte(`"` + agents.LoadSkillName + `"`)
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
	if tool != agents.LoadSkillName || json.Unmarshal([]byte(arguments), &args) != nil || (args.File != "" && args.File != "SKILL.md") {
		return ""
	}
	return args.Name
}
