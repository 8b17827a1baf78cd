package core

import (
	"encoding/json"
	"time"
)

// EventType names an event published to the UI and the CLI. The page's event names, payload
// types and LoopEvent union are generated from EventTypes and PayloadTypes (scripts/gentypes,
// `make types`); a test fails when the committed frontend/src/api/wire.ts is stale.
type EventType string

// Event types. Deltas are lossy (coalesced for a slow subscriber); everything else is
// must-deliver.
const (
	EventRunStarted        EventType = "run_started"
	EventRowsStored        EventType = "rows_stored"
	EventTextDelta         EventType = "text_delta"
	EventReasoningDelta    EventType = "reasoning_delta"
	EventAssistantMessage  EventType = "assistant_message"
	EventToolCall          EventType = "tool_call"
	EventApprovalRequested EventType = "approval_requested"
	EventApprovalDecided   EventType = "approval_decided"
	EventToolStarted       EventType = "tool_started"
	EventToolOutput        EventType = "tool_output"
	EventToolFinished      EventType = "tool_finished"
	EventFilesChanged      EventType = "files_changed"
	EventUsage             EventType = "usage"
	EventCompacted         EventType = "compacted"
	EventBudget            EventType = "budget"
	EventRunFinished       EventType = "run_finished"
	EventQueueChanged      EventType = "queue_changed"
	EventModelRetrying     EventType = "model_retrying"
)

// EventTypes lists every event type, in the order of a typical run.
var EventTypes = []EventType{
	EventRunStarted, EventRowsStored, EventTextDelta, EventReasoningDelta, EventAssistantMessage, EventToolCall,
	EventApprovalRequested, EventApprovalDecided, EventToolStarted, EventToolOutput,
	EventToolFinished, EventFilesChanged, EventUsage, EventCompacted, EventBudget, EventRunFinished, EventQueueChanged,
	EventModelRetrying,
}

// Lossy reports whether events of this type may be coalesced for a slow subscriber.
func (t EventType) Lossy() bool {
	return t == EventTextDelta || t == EventReasoningDelta || t == EventToolOutput
}

// Payload is the type-specific body of an event.
type Payload interface{ Type() EventType }

// RunStartedPayload opens a run.
type RunStartedPayload struct {
	Prompt    string    `json:"prompt"`
	Model     string    `json:"model"`
	Workspace string    `json:"workspace"`
	Sandbox   string    `json:"sandbox"` // how shell commands are confined (tools.ShellSandbox.Describe)
	StartedAt time.Time `json:"started_at"`
	Mode      string    `json:"mode"`
	// MCPFailed names the configured MCP servers that failed to start ("name: why"): this
	// run has none of their tools.
	MCPFailed []string `json:"mcp_failed,omitempty"`
	// ThinkingBudget is the extended-thinking budget the run's requests ask for, in tokens,
	// after any raise to the provider's minimum; absent when thinking is off.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// ImagesDropped are the images attached to the prompt that the model is not sent, and why.
	ImagesDropped []DroppedImage `json:"images_dropped,omitempty"`
	// HarnessTokens is what Loopdesk itself adds to each of the run's requests; absent when
	// the runner was not told how to count it (Started.HarnessTokens).
	HarnessTokens *HarnessTokens `json:"harness_tokens,omitempty"`
}

// HarnessTokens are the tokens Loopdesk itself puts in every request of a run, before any
// history: its system prompt (skills and plan notice included), the schemas of the built-in
// tools and of each MCP server's tools (by server), the instruction files (AGENTS.md) and
// Loopdesk's notes. Estimated says the figures are estimated from the text (EstimateTokens),
// not counted by the provider.
type HarnessTokens struct {
	System       int64            `json:"system"`
	Tools        int64            `json:"tools"`
	MCP          map[string]int64 `json:"mcp"`
	Instructions int64            `json:"instructions"`
	Notes        int64            `json:"notes"`
	Total        int64            `json:"total"`
	Estimated    bool             `json:"estimated"`
}

// DroppedImage is an attached image the model is not sent: the file as the person named it,
// and why (a text-only model).
type DroppedImage struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ModelRetryingPayload says a model call failed in a way worth another attempt (a 5xx, a 429,
// a refused connection) before any output, and is tried again after WaitMS: the person reads
// "Retrying (1 of 2) after HTTP 500" instead of a silent wait.
type ModelRetryingPayload struct {
	Attempt int    `json:"attempt"` // this retry, from 1
	Of      int    `json:"of"`      // the retries one model call may make
	WaitMS  int64  `json:"wait_ms"` // the wait before the attempt
	Cause   string `json:"cause"`   // short: "HTTP 500", "connection refused"
	Error   string `json:"error"`   // the failure in full, as the provider said it
}

// DeltaPayload is a piece of streamed text (text_delta, reasoning_delta).
type DeltaPayload struct {
	Text      string `json:"text"`
	reasoning bool
}

// ToolCallView is a call as shown to people: Arguments is the parsed JSON when it parses and
// the raw text as a JSON string when it does not.
type ToolCallView struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// AssistantMessagePayload is a finished assistant turn.
type AssistantMessagePayload struct {
	Text      string         `json:"text"`
	Reasoning string         `json:"reasoning"`
	ToolCalls []ToolCallView `json:"tool_calls"`
}

// ToolCallPayload announces one call the model made (id, name, arguments).
type ToolCallPayload ToolCallView

// ApprovalRequestedPayload says a person is being asked about a call.
type ApprovalRequestedPayload struct {
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	ReadOnly  bool            `json:"read_only"`
	// Sandboxed: the command will run in the sandbox (tools.Pending.Sandboxed); Network:
	// it asks for network ("network": true).
	Sandboxed bool `json:"sandboxed"`
	Network   bool `json:"network"`
	// Hunks: in approval mode review, the hunks a write_file or edit_file call would write.
	Hunks []ProposedHunk `json:"hunks,omitempty"`
	// Note: a skill grant covered the call but was ignored, and why ("skill grants ignored:
	// not trusted" for a project skill the person has not trusted).
	Note string `json:"note,omitempty"`
}

// ProposedHunk is one hunk of a change not yet written (checkpoint.Propose makes them; as the card
// shows it): its ranges, its unified-diff text, and its lines before and after (context
// included; "new" is what an edit starts from).
type ProposedHunk struct {
	Hunk     int    `json:"hunk"`
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Patch    string `json:"patch"`
	Old      string `json:"old"`
	New      string `json:"new"`
}

// ApprovalDecidedPayload records the answer.
type ApprovalDecidedPayload struct {
	CallID   string `json:"call_id"`
	Name     string `json:"name"`
	Approved bool   `json:"approved"`
	By       string `json:"by"`
	Reason   string `json:"reason"`
}

// ToolStartedPayload says a call began executing.
type ToolStartedPayload struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
}

// ToolOutputPayload is streamed output of a running call (shell output).
type ToolOutputPayload struct {
	CallID string `json:"call_id"`
	Text   string `json:"text"`
}

// ToolFinishedPayload is a call's one result.
type ToolFinishedPayload struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	// Sandboxed: the command ran inside the sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`
}

// UsagePayload reports one model call's tokens and the run's totals.
type UsagePayload struct {
	InputTokens       int64   `json:"input_tokens"`
	OutputTokens      int64   `json:"output_tokens"`
	TotalInputTokens  int64   `json:"total_input_tokens"`
	TotalOutputTokens int64   `json:"total_output_tokens"`
	CostUSD           float64 `json:"cost_usd"`
}

// CompactedPayload says older rows were summarised.
type CompactedPayload struct {
	// FromSeq > 0: an exchange was set aside (rows FromSeq..ThroughSeq), not summarised.
	FromSeq       int64  `json:"from_seq"`
	ThroughSeq    int64  `json:"through_seq"`
	Summary       string `json:"summary"`
	ContextTokens int64  `json:"context_tokens"`
	Emergency     bool   `json:"emergency"`
}

// BudgetPayload is the state of every meter; a zero max means "no limit". Warning names the
// budgets past their soft limit, if any.
type BudgetPayload struct {
	Turns         int      `json:"turns"`
	MaxTurns      int      `json:"max_turns"`
	ToolCalls     int      `json:"tool_calls"`
	MaxToolCalls  int      `json:"max_tool_calls"`
	Tokens        int64    `json:"tokens"`
	MaxTokens     int64    `json:"max_tokens"`
	CostUSD       float64  `json:"cost_usd"`
	MaxCostUSD    float64  `json:"max_cost_usd"`
	ElapsedMS     int64    `json:"elapsed_ms"`
	TimeoutMS     int64    `json:"timeout_ms"`
	ContextTokens int64    `json:"context_tokens"`
	ContextWindow int64    `json:"context_window"`
	Warnings      []string `json:"warnings"`
	// Meters are the same numbers as the window draws them; Repeats the loop-detection state.
	Meters  []Meter  `json:"meters"`
	Repeats *Repeats `json:"repeats"`
}

// QueueChangedPayload is the session's queue of messages waiting for a tool boundary, after
// a message was queued, withdrawn or delivered (Delivered names those just stored as rows).
type QueueChangedPayload struct {
	Queued    []QueuedMessage `json:"queued"`
	Delivered []string        `json:"delivered"`
}

// RunFinishedPayload carries the structured result and the meters as the run left them.
type RunFinishedPayload struct {
	Result
	Meters []Meter `json:"meters"`
}

func (RunStartedPayload) Type() EventType { return EventRunStarted }
func (p DeltaPayload) Type() EventType {
	if p.reasoning {
		return EventReasoningDelta
	}
	return EventTextDelta
}
func (AssistantMessagePayload) Type() EventType  { return EventAssistantMessage }
func (ModelRetryingPayload) Type() EventType     { return EventModelRetrying }
func (ToolCallPayload) Type() EventType          { return EventToolCall }
func (ApprovalRequestedPayload) Type() EventType { return EventApprovalRequested }
func (ApprovalDecidedPayload) Type() EventType   { return EventApprovalDecided }
func (ToolStartedPayload) Type() EventType       { return EventToolStarted }
func (ToolOutputPayload) Type() EventType        { return EventToolOutput }
func (ToolFinishedPayload) Type() EventType      { return EventToolFinished }
func (UsagePayload) Type() EventType             { return EventUsage }
func (CompactedPayload) Type() EventType         { return EventCompacted }
func (BudgetPayload) Type() EventType            { return EventBudget }
func (RunFinishedPayload) Type() EventType       { return EventRunFinished }
func (QueueChangedPayload) Type() EventType      { return EventQueueChanged }

// TextDelta and ReasoningDelta build the two delta payloads.
func TextDelta(s string) DeltaPayload      { return DeltaPayload{Text: s} }
func ReasoningDelta(s string) DeltaPayload { return DeltaPayload{Text: s, reasoning: true} }

// ViewArguments turns raw argument text into what events carry: the JSON itself when valid,
// otherwise the text as a JSON string, so an event is always valid JSON.
func ViewArguments(raw string) json.RawMessage {
	if raw == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	b, _ := json.Marshal(raw) // a string always marshals
	return b
}

func viewCall(c Call) ToolCallView {
	return ToolCallView{ID: c.ID, Name: c.Name, Arguments: ViewArguments(c.Arguments)}
}
