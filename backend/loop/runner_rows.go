package loop

import "github.com/loopdesk/loopdesk/backend/store"

// Rows as the runner publishes them. They live here, not with the core's payloads
// (core/events.go), because they carry store types and the core imports no Loopdesk package.

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
		out[i] = StoredRow{Chunk: c, Tokens: EstimateTokens(string(c.Payload))}
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

func (RowsStoredPayload) Type() EventType { return EventRowsStored }

// PayloadTypes maps each event type to a zero payload, for the TypeScript mirror test and for
// decoding the CLI's --json lines.
func PayloadTypes() map[EventType]Payload {
	return map[EventType]Payload{
		EventRunStarted:        RunStartedPayload{},
		EventRowsStored:        RowsStoredPayload{},
		EventTextDelta:         TextDelta(""),
		EventReasoningDelta:    ReasoningDelta(""),
		EventAssistantMessage:  AssistantMessagePayload{},
		EventToolCall:          ToolCallPayload{},
		EventApprovalRequested: ApprovalRequestedPayload{},
		EventApprovalDecided:   ApprovalDecidedPayload{},
		EventToolStarted:       ToolStartedPayload{},
		EventToolOutput:        ToolOutputPayload{},
		EventToolFinished:      ToolFinishedPayload{},
		EventFilesChanged:      FilesChangedPayload{},
		EventUsage:             UsagePayload{},
		EventCompacted:         CompactedPayload{},
		EventBudget:            BudgetPayload{},
		EventRunFinished:       RunFinishedPayload{},
		EventQueueChanged:      QueueChangedPayload{},
		EventModelRetrying:     ModelRetryingPayload{},
	}
}
