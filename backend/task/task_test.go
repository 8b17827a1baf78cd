package task_test

import (
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/task"
)

// The model reads why its call was refused: unknown fields, a missing description or prompt,
// an agent that does not exist (naming those that do).
func TestBadTaskCallsSayWhatIsWrong(t *testing.T) {
	for raw, want := range map[string]string{
		`{"description":"x","prompt":"y","model":"big"}`: `unknown field "model"`,
		`{"description":"x"}`:                            "description and prompt must not be empty",
		`{"description":" ","prompt":"y"}`:               "description and prompt must not be empty",
		`not json`:                                       "invalid arguments for task",
	} {
		if _, err := task.ParseArgs(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to say %q", raw, err, want)
		}
	}
	if a, err := task.ParseArgs(`{"description":"count","prompt":"count the files","agent":"explore"}`); err != nil || a.Agent != "explore" {
		t.Errorf("a good call: %+v %v", a, err)
	}
	defs := []agents.Definition{{Name: "explore", Description: "reads"}, {Name: "review", Description: "judges"}}
	if _, err := task.Find(defs, "writer"); err == nil || !strings.Contains(err.Error(), "the agents are: explore, review") {
		t.Errorf("unknown agent: %v", err)
	}
	if _, err := task.Find(nil, "writer"); err == nil || !strings.Contains(err.Error(), "no agents are defined") {
		t.Errorf("no agents: %v", err)
	}
	if spec := task.Spec(defs); !strings.Contains(spec.Description, "\n- review: judges") || !spec.ReadOnly || spec.Name != task.Tool {
		t.Errorf("spec: %+v", spec)
	}
}

// A child works like its parent unless its agent says otherwise: the agent's prompt, its own
// model (then priced by that model) and a tighter turn bound, never a looser one.
func TestAChildIsGivenItsAgentsPromptModelAndTurns(t *testing.T) {
	parent := task.Child{Model: "m", System: "be brief", Limits: core.Limits{MaxTurns: 10, Price: core.Price{InputPerMTok: 1}}}
	if got := parent.As(nil); got.Model != "m" || got.System != "be brief" || got.Limits.MaxTurns != 10 {
		t.Errorf("no agent: %+v", got)
	}
	got := parent.As(&agents.Definition{Prompt: "explore", Model: "small", MaxTurns: 20})
	if got.Model != "small" || got.System != "explore" || got.Limits.Price != (core.Price{}) || got.Limits.MaxTurns != 10 {
		t.Errorf("an agent with a model and a looser bound: %+v", got)
	}
	got = parent.As(&agents.Definition{Prompt: "explore", Model: agents.Inherit, MaxTurns: 3})
	if got.Model != "m" || got.Limits.Price.InputPerMTok != 1 || got.Limits.MaxTurns != 3 {
		t.Errorf("an agent that inherits the model, with a tighter bound: %+v", got)
	}
}

// The parent's model reads the child's answer, or why it stopped with what it had so far.
func TestTheParentReadsTheChildsAnswerOrWhyItStopped(t *testing.T) {
	if r := task.Result("s2", core.Result{Status: core.StopCompleted, Output: "42 files"}); r.Content != "42 files" || r.IsError {
		t.Errorf("completed: %+v", r)
	}
	r := task.Result("s2", core.Result{Status: core.StopMaxTurns, Error: "reached the limit of 3 turns", Output: "so far: 40"})
	if !r.IsError || !strings.Contains(r.Content, "the child session s2 stopped: max_turns (reached the limit of 3 turns)") || !strings.Contains(r.Content, "so far: 40") {
		t.Errorf("stopped: %+v", r)
	}
}
