package instructions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// DefaultSystemPrompt is the agent's instructions when the person gives none:
// where it works, what its tools can and cannot reach, and that a person
// approves its calls. It names the workspace, so it is fixed for a session and
// provider prompt caches keep working across runs.
func DefaultSystemPrompt(workspace string) string {
	return fmt.Sprintf(`You are an agent working inside the folder %s on the user's machine.
Use the tools to read, search and change files there and to run shell commands in it. Paths are relative to that folder; tools cannot reach anything outside it.
A person approves or denies each tool call that changes something. When a call is denied, read the reason, do not repeat the same call, and change your approach.
Work step by step, check the results of your tools, and finish with a short summary of what you did and changed.`, workspace)
}

// PlanNotice is appended to the system prompt of a plan-mode run.
const PlanNotice = "[loopdesk] This session is in plan mode: you are planning, not executing. You are offered " +
	"only read-only tools (read, list, find, search); writing, editing, shell commands and other tools that may " +
	"change something come back once the person runs the plan. Investigate as much as you need, then end your answer with a plan: numbered steps " +
	"naming the files and commands you would change or run. The person reviews it and runs it with Execute plan."

// System is a run's system prompt: base with the instruction files (Compose), then the
// plan-mode notice for a plan-mode run, then the folder's skills ("" for none).
func System(base string, files []File, plan bool, skills string) string {
	parts := []string{Compose(base, files)}
	if plan {
		parts = append(parts, PlanNotice)
	}
	parts = slices.DeleteFunc(append(parts, skills), func(p string) bool { return p == "" })
	return strings.Join(parts, "\n\n")
}

// PromptHash is what a run row records of its system prompt: its SHA-256 in hex ("" for none).
func PromptHash(system string) string {
	if system == "" {
		return ""
	}
	h := sha256.Sum256([]byte(system))
	return hex.EncodeToString(h[:])
}
