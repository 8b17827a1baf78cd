package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// replay sends a stored session to the client as session/update notifications, row by row:
// user rows as user_message_chunk; assistant rows as agent_thought_chunk (reasoning),
// agent_message_chunk (text) and a tool_call per call; tool_result rows as the call's final
// tool_call_update (status, content, and a diff per file its checkpoint recorded); summaries
// and restores as agent messages saying so. Approval, note and system rows are Loopdesk's
// bookkeeping and are not shown.
func (a *Agent) replay(ctx context.Context, s store.Session) error {
	rows, err := a.cfg.Stack.DB.Chunks(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("load session %s: %w", s.ID, err)
	}
	changes := map[int64][]checkpoint.Change{}
	if rec := a.cfg.Stack.Checkpoints; rec != nil {
		if all, err := rec.Changes(ctx, s.ID); err == nil {
			for _, c := range all {
				changes[c.Seq] = append(changes[c.Seq], c)
			}
		}
	}
	t := newTurn(a, &session{id: s.ID, workspace: s.Workspace})
	defer t.stop()
	for _, row := range rows {
		for _, u := range t.replayRow(ctx, row, changes[row.Seq]) {
			t.send(u)
		}
	}
	return nil
}

func (t *turn) replayRow(ctx context.Context, row store.Chunk, changes []checkpoint.Change) []sdk.SessionUpdate {
	switch row.Kind {
	case store.KindUser:
		var p store.UserPayload
		if json.Unmarshal(row.Payload, &p) == nil && p.Text != "" {
			return []sdk.SessionUpdate{sdk.UpdateUserMessageText(p.Text)}
		}
	case store.KindAssistant:
		return t.replayAssistant(row)
	case store.KindToolResult:
		var p store.ToolResultPayload
		if json.Unmarshal(row.Payload, &p) != nil {
			return nil
		}
		out := []sdk.SessionUpdate{t.finish(p.CallID, p.Name, p.Content, p.IsError)}
		if rec := t.a.cfg.Stack.Checkpoints; rec != nil && len(changes) > 0 {
			content, locs := diffContent(ctx, rec, t.s.workspace, changes)
			c := t.call(p.CallID)
			c.content = append(c.content, content...)
			c.locations = mergeLocations(c.locations, locs)
			out = append(out, t.update(p.CallID, sdk.WithUpdateContent(c.content), sdk.WithUpdateLocations(c.locations)))
		}
		return out
	case store.KindSummary:
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText("[Earlier messages were summarised to save context.]")}
	case store.KindRestore:
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText("[The folder was restored to an earlier checkpoint.]")}
	}
	return nil
}

func (t *turn) replayAssistant(row store.Chunk) []sdk.SessionUpdate {
	var p store.AssistantPayload
	if json.Unmarshal(row.Payload, &p) != nil {
		return nil
	}
	var out []sdk.SessionUpdate
	if p.Reasoning != "" {
		out = append(out, sdk.UpdateAgentThoughtText(p.Reasoning))
	}
	if p.Text != "" {
		out = append(out, sdk.UpdateAgentMessageText(p.Text))
	}
	for _, c := range p.ToolCalls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			args, _ = json.Marshal(c.Arguments) // a string always marshals
		}
		out = append(out, t.startCall(c.ID, c.Name, args))
	}
	return out
}
