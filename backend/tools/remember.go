package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/store"
)

// RememberTool is the remember tool's name.
const RememberTool = "remember"

// Remember is the remember tool: the model proposes a memory, the person approves it (only the
// person: core.ToolPersonOnly), and it becomes a memory linked to the row that proposed it.
// Keeping it needs the call's session and row, which a Tool is not given: Execute reads the
// approved arguments (validated by the registry; the person may have edited the text) into
// Meta.Memory, and the run's memory extension (backend/extend, Memory) keeps it with Save.
// Without that extension the call fails: the run cannot keep memories.
type Remember struct{}

var _ Tool = Remember{}

// Name implements Tool.
func (Remember) Name() string { return RememberTool }

// Description implements Tool. It and the schema are short: every request carries them, and
// the store refuses a text over store.MaxMemoryText with a message the model reads.
func (Remember) Description() string {
	return "Propose a lasting fact for later sessions; the person approves or edits it. scope: project (this folder) or personal"
}

// Schema implements Tool.
func (Remember) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1},` +
		`"scope":{"enum":["project","personal"]}},"required":["text"]}`)
}

// ReadOnly implements Tool: a memory changes every later prompt of its folder.
func (Remember) ReadOnly() bool { return false }

// Execute implements Tool: the memory the call asks for, in Meta.Memory, for the memory
// extension to keep (its result replaces this one).
func (Remember) Execute(_ context.Context, ws *Workspace, raw json.RawMessage, _ func(string)) Result {
	var a struct {
		Text  string `json:"text"`
		Scope string `json:"scope"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return errorf("remember: %v", err)
	}
	n := store.NewMemory{Scope: store.MemoryScope(a.Scope), Text: a.Text}
	switch {
	case n.Scope == "":
		n.Scope = store.MemoryProject
		fallthrough
	case n.Scope == store.MemoryProject && ws != nil:
		n.Workspace = ws.Root()
	}
	return Result{Content: "remember: this run cannot keep memories", IsError: true, Meta: Meta{Memory: &n}}
}

// MemoryKeeper stores a memory proposed by a call (*store.DB): the row of the call, then the
// memory.
type MemoryKeeper interface {
	CallRow(ctx context.Context, sessionID, runID, callID string, before int64) (int64, store.ToolCall, error)
	AddMemory(ctx context.Context, n store.NewMemory) (store.Memory, error)
}

// SaveMemory keeps n, the memory a remember call of run runID in session sessionID asked for
// (Meta.Memory), linked to the assistant row that made the call, and says so to the model.
func SaveMemory(ctx context.Context, keeper MemoryKeeper, sessionID, runID string, call Call, n store.NewMemory) Result {
	seq, _, err := keeper.CallRow(ctx, sessionID, runID, call.ID, 1<<62)
	if err != nil {
		return errorf("remember: %v", err)
	}
	n.Source, n.CallID = &store.MemorySource{SessionID: sessionID, Seq: seq}, call.ID
	m, err := keeper.AddMemory(ctx, n)
	if err != nil {
		return errorf("remember: %v", err)
	}
	return Result{Content: fmt.Sprintf("Remembered as a %s memory (id %s): %s", m.Scope, m.ID, m.Text)}
}
