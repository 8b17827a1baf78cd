package loop

import "github.com/loopdesk/loopdesk/backend/loop/core"

// The core's names, as the runner and the front ends (stack, cli, acp, desktop) use them.
// They are aliases: the same types and values as backend/loop/core's, declared once there.
// Two names are the runner's own and are converted at its boundary (runner_convert.go):
// Call is tools.Call and ImageRef is store.ImageRef.

type (
	ApprovalDecided          = core.ApprovalDecided
	ApprovalDecidedPayload   = core.ApprovalDecidedPayload
	ApprovalRequestedPayload = core.ApprovalRequestedPayload
	ApprovalRow              = core.ApprovalRow
	AssistantMessagePayload  = core.AssistantMessagePayload
	AssistantRow             = core.AssistantRow
	BudgetPayload            = core.BudgetPayload
	CallModel                = core.CallModel
	CancelRequested          = core.CancelRequested
	ChildSpend               = core.ChildSpend
	ChildWaiting             = core.ChildWaiting
	Compact                  = core.Compact
	Compacted                = core.Compacted
	CompactedPayload         = core.CompactedPayload
	Decision                 = core.Decision
	DeltaPayload             = core.DeltaPayload
	ModelRetryingPayload     = core.ModelRetryingPayload
	DroppedImage             = core.DroppedImage
	Done                     = core.Done
	Effect                   = core.Effect
	Emit                     = core.Emit
	EventType                = core.EventType
	Failed                   = core.Failed
	FireHook                 = core.FireHook
	HookAnswered             = core.HookAnswered
	Input                    = core.Input
	Limits                   = core.Limits
	MessageQueued            = core.MessageQueued
	Meter                    = core.Meter
	MeterInput               = core.MeterInput
	MeterKey                 = core.MeterKey
	MeterLevel               = core.MeterLevel
	MeterUnit                = core.MeterUnit
	ModelResponded           = core.ModelResponded
	ModelResponse            = core.ModelResponse
	Origin                   = core.Origin
	Payload                  = core.Payload
	Persist                  = core.Persist
	Phase                    = core.Phase
	Price                    = core.Price
	PriceTable               = core.PriceTable
	ProposedHunk             = core.ProposedHunk
	QueueChangedPayload      = core.QueueChangedPayload
	QueueWithdrawn           = core.QueueWithdrawn
	QueuedMessage            = core.QueuedMessage
	Recovery                 = core.Recovery
	Repeats                  = core.Repeats
	RequestApproval          = core.RequestApproval
	ResponseStatus           = core.ResponseStatus
	Result                   = core.Result
	Row                      = core.Row
	RowKind                  = core.RowKind
	RowRef                   = core.RowRef
	RowUsage                 = core.RowUsage
	RunFinishedPayload       = core.RunFinishedPayload
	RunStartedPayload        = core.RunStartedPayload
	RunTools                 = core.RunTools
	Started                  = core.Started
	State                    = core.State
	StopReason               = core.StopReason
	SummaryRow               = core.SummaryRow
	Ticked                   = core.Ticked
	ToolCallPayload          = core.ToolCallPayload
	ToolCallView             = core.ToolCallView
	ToolFinished             = core.ToolFinished
	ToolFinishedPayload      = core.ToolFinishedPayload
	ToolOutputPayload        = core.ToolOutputPayload
	ToolResultRow            = core.ToolResultRow
	ToolStartedPayload       = core.ToolStartedPayload
	Usage                    = core.Usage
	UsagePayload             = core.UsagePayload
	UsageRow                 = core.UsageRow
	UserRow                  = core.UserRow
)

const (
	ByPlanMode              = core.ByPlanMode
	PlanRefusal             = core.PlanRefusal
	DecisionApproved        = core.DecisionApproved
	DecisionDenied          = core.DecisionDenied
	DefaultCompactAt        = core.DefaultCompactAt
	DefaultKeepTurns        = core.DefaultKeepTurns
	DefaultSoftAt           = core.DefaultSoftAt
	EmergencyCompact        = core.EmergencyCompact
	EventApprovalDecided    = core.EventApprovalDecided
	EventApprovalRequested  = core.EventApprovalRequested
	EventAssistantMessage   = core.EventAssistantMessage
	EventBudget             = core.EventBudget
	EventCompacted          = core.EventCompacted
	EventFilesChanged       = core.EventFilesChanged
	EventQueueChanged       = core.EventQueueChanged
	EventReasoningDelta     = core.EventReasoningDelta
	EventRowsStored         = core.EventRowsStored
	EventRunFinished        = core.EventRunFinished
	EventRunStarted         = core.EventRunStarted
	EventTextDelta          = core.EventTextDelta
	EventModelRetrying      = core.EventModelRetrying
	EventToolCall           = core.EventToolCall
	EventToolFinished       = core.EventToolFinished
	EventToolOutput         = core.EventToolOutput
	EventToolStarted        = core.EventToolStarted
	EventUsage              = core.EventUsage
	KindApproval            = core.KindApproval
	KindAssistant           = core.KindAssistant
	KindSummary             = core.KindSummary
	KindToolResult          = core.KindToolResult
	KindUsage               = core.KindUsage
	KindUser                = core.KindUser
	LevelHard               = core.LevelHard
	LevelOK                 = core.LevelOK
	LevelSoft               = core.LevelSoft
	MeterContext            = core.MeterContext
	MeterCost               = core.MeterCost
	MeterTime               = core.MeterTime
	MeterTokens             = core.MeterTokens
	MeterToolCalls          = core.MeterToolCalls
	MeterTurns              = core.MeterTurns
	PhaseApproving          = core.PhaseApproving
	PhaseCompacting         = core.PhaseCompacting
	PhaseDone               = core.PhaseDone
	PhaseHook               = core.PhaseHook
	PhaseIdle               = core.PhaseIdle
	PhaseStreaming          = core.PhaseStreaming
	PhaseTools              = core.PhaseTools
	ResponseContextExceeded = core.ResponseContextExceeded
	ResponseOK              = core.ResponseOK
	ResponseProviderError   = core.ResponseProviderError
	ResponseRefused         = core.ResponseRefused
	ResponseTruncated       = core.ResponseTruncated
	StopCancelled           = core.StopCancelled
	StopHook                = core.StopHook
	StopCompleted           = core.StopCompleted
	StopContextExceeded     = core.StopContextExceeded
	StopCostBudget          = core.StopCostBudget
	StopError               = core.StopError
	StopLoopDetected        = core.StopLoopDetected
	StopMaxToolCalls        = core.StopMaxToolCalls
	StopMaxTurns            = core.StopMaxTurns
	StopProviderError       = core.StopProviderError
	StopRefused             = core.StopRefused
	StopTimeout             = core.StopTimeout
	StopTokenBudget         = core.StopTokenBudget
	StopTruncated           = core.StopTruncated
	UnitCount               = core.UnitCount
	UnitSeconds             = core.UnitSeconds
	UnitTokens              = core.UnitTokens
	UnitUSD                 = core.UnitUSD
)

// EventTypes lists every event type, in the order of a typical run.
var EventTypes = core.EventTypes

// Cut shortens s to n runes (core.Cut).
func Cut(s string, n int) string { return core.Cut(s, n) }

// Title is a session's title from its first message (core.Title).
func Title(text string) string { return core.Title(text) }

// ParseLimits reads limits stored with a run (core.ParseLimits).
func ParseLimits(raw []byte) (Limits, error) { return core.ParseLimits(raw) }

// Meters computes the six budget meters (core.Meters).
func Meters(in MeterInput) []Meter { return core.Meters(in) }

// SetAsideNote is what the model reads in place of a set-aside exchange (core.SetAsideNote).
func SetAsideNote(from, through int64) string { return core.SetAsideNote(from, through) }

// JSONKind names the kind of a decoded JSON value (core.JSONKind).
func JSONKind(v any) string { return core.JSONKind(v) }

// EstimateTokens is the rough size of text in tokens (core.EstimateTokens).
func EstimateTokens(text string) int64 { return core.EstimateTokens(text) }

// TextDelta and ReasoningDelta build the two delta payloads.
func TextDelta(s string) DeltaPayload      { return core.TextDelta(s) }
func ReasoningDelta(s string) DeltaPayload { return core.ReasoningDelta(s) }
