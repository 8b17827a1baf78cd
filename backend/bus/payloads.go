package bus

import (
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The events that carry Loopdesk's own types besides the core's payloads (core/events.go):
// they live here, not with the core's, because the core imports no Loopdesk package.

// StoredRow is one stored row as the page and the CLI see it: the chunk plus its estimated
// size in tokens (the page's boundary type for a row).
type StoredRow struct {
	store.Chunk
	Tokens int64 `json:"tokens"`
}

// RowsOf estimates each chunk's tokens.
func RowsOf(chunks []store.Chunk) []StoredRow {
	out := make([]StoredRow, len(chunks))
	for i, c := range chunks {
		out[i] = StoredRow{Chunk: c, Tokens: core.EstimateTokens(string(c.Payload))}
	}
	return out
}

// RowsStoredPayload carries rows just appended to the session, in seq order. It is published
// right after the append and before the event that reports the same step (assistant_message,
// approval_decided, tool_finished, compacted, run_finished), so a subscriber can keep a
// session's rows current without reading the database.
type RowsStoredPayload struct {
	Rows []StoredRow `json:"rows"`
}

func (RowsStoredPayload) Type() core.EventType { return core.EventRowsStored }

// PayloadTypes maps each event type to a zero payload, for the TypeScript mirror test and for
// decoding the CLI's --json lines.
func PayloadTypes() map[core.EventType]core.Payload {
	return map[core.EventType]core.Payload{
		core.EventRunStarted:        core.RunStartedPayload{},
		core.EventRowsStored:        RowsStoredPayload{},
		core.EventTextDelta:         core.TextDelta(""),
		core.EventReasoningDelta:    core.ReasoningDelta(""),
		core.EventAssistantMessage:  core.AssistantMessagePayload{},
		core.EventToolCall:          core.ToolCallPayload{},
		core.EventApprovalRequested: core.ApprovalRequestedPayload{},
		core.EventApprovalDecided:   core.ApprovalDecidedPayload{},
		core.EventToolStarted:       core.ToolStartedPayload{},
		core.EventToolOutput:        core.ToolOutputPayload{},
		core.EventToolFinished:      core.ToolFinishedPayload{},
		core.EventFilesChanged:      checkpoint.FilesChangedPayload{},
		core.EventUsage:             core.UsagePayload{},
		core.EventCompacted:         core.CompactedPayload{},
		core.EventBudget:            core.BudgetPayload{},
		core.EventRunFinished:       core.RunFinishedPayload{},
		core.EventQueueChanged:      core.QueueChangedPayload{},
		core.EventModelRetrying:     core.ModelRetryingPayload{},
	}
}
