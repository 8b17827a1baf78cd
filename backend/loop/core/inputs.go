package core

import (
	"encoding/json"
	"slices"
	"time"
)

// Input is an event fed to Next: something that happened. Time and ids arrive here; the core
// never makes them up.
type Input interface{ input() }

// Started accepts the person's prompt and opens the run.
type Started struct {
	Now       time.Time
	SessionID string
	RunID     string
	Model     string
	Workspace string
	Prompt    string
	// PromptQueuedID names the queued message Prompt delivers ("Send now" on a message left
	// queued), so the prompt's row takes it off the queue.
	PromptQueuedID string
	// PromptImages are the images sent with Prompt (stored blobs), kept on its user row, and
	// Command the slash command or skill Prompt was expanded from ("/review"), recorded there.
	PromptImages []ImageRef
	Command      string
	// AfterPrompt are rows stored right after the prompt's, in a transaction of their own
	// (first, with no prompt), so the first request carries them: what the prompt's check
	// recorded and added for the model, and the notes a front end gave the run.
	AfterPrompt []Row
	Limits      Limits
	// Sandbox says how the run's shell commands are confined (tools.ShellSandbox.Describe).
	Sandbox string
	// ContextTokens estimates the size of the history already in the session (system prompt
	// and earlier rows), so a long session can be compacted before its first call.
	ContextTokens int64
	// Mode is "plan" or "execute", shown on run_started. In plan mode (ModePlan) every call
	// of a tool that is not read-only is refused without asking.
	Mode string
	// Tools are the run's tools with their kinds. A call of any other tool is approved
	// without asking, for the tool runner to answer unknown_tool.
	Tools []ToolInfo
	// Approval is the run's approval mode ("ask", "read-only", "auto", "deny", ...): the
	// core lowers it to ApprovalReadOnly for the calls that change nothing (task, plan)
	// unless it is ApprovalDeny.
	Approval string
	// Agent names the agent the run works as, for the refusal of a tool it was not given.
	Agent string
	// NoPerson says nobody can be asked during the run (no terminal and no window, a
	// schedule): a call only the person approves (ToolPersonOnly) is refused ByNoPerson.
	NoPerson bool
	// Depth is how deep the run's session is among task children (0: a person started it);
	// TaskGranted says the run's agent lists the task tool among its tools. A child may start
	// children only when its agent grants task, and never at MaxTaskDepth: otherwise the run
	// keeps no task tool (State.HasTool), and a call of it is an unknown tool's.
	Depth       int
	TaskGranted bool
	// StopHook is the hook event fired when the run completes ("Stop", "SubagentStop" for
	// a child session), "" when none is configured: then the run ends at once (hooks.go).
	StopHook string
	// PreCompactHook: a PreCompact hook is configured; it fires before each summary call.
	PreCompactHook bool
	// Queued are messages left undelivered by the previous run: stored as user rows right
	// after the prompt.
	Queued []QueuedMessage
	// Rows are the session's rows before the run, oldest first (the driver adds the rows it
	// stores later with Stored). Compaction cuts among them.
	Rows []RowRef
	// PreviousStop is how the session's last run ended. After context_exceeded the run
	// compacts before its first call and, when that cannot make room, sets the exchange that
	// was in flight (InFlight of Rows) aside.
	PreviousStop StopReason
	// MCPFailed names the configured MCP servers whose tools this run lacks ("name: why").
	MCPFailed []string
	// ThinkingBudget (tokens, 0 off) and ImagesDropped are what run_started reports of the
	// run's requests: the thinking budget they ask for, and the attached images left out.
	ThinkingBudget int
	ImagesDropped  []DroppedImage
	// HarnessTokens, when not nil, is what run_started reports of Loopdesk's own share of
	// each request (counted outside the core: stack.HarnessTokens).
	HarnessTokens *HarnessTokens
	// CompactThrough > 0 makes this a compaction the person asked for ("Compact up to here"):
	// no prompt, one summary of the rows through that seq, then the run completes.
	CompactThrough int64
}

// Recovery names the exchange that was in flight when the session hit the context limit:
// rows FromSeq..ThroughSeq, about Tokens in size.
type Recovery struct {
	FromSeq    int64 `json:"from_seq"`
	ThroughSeq int64 `json:"through_seq"`
	Tokens     int64 `json:"tokens"`
}

// QueuedMessage is a message the person sent while the run was going. It waits, removable,
// until the next tool boundary, where it becomes a user row.
type QueuedMessage struct {
	ID       string    `json:"id"`
	Text     string    `json:"text"`
	QueuedAt time.Time `json:"queued_at"`
}

// Stored tells the core about rows the driver appended since Started or the last Stored,
// with the seqs the store gave them: the rows of its Persist effects and the rows it wrote
// itself (hook runs, notes). It has no effects; the driver feeds it before the next input.
type Stored struct{ Rows []RowRef }

// MessageQueued adds a message to the run's queue.
type MessageQueued struct {
	Now     time.Time
	Message QueuedMessage
}

// QueueWithdrawn removes a queued message that was not delivered yet; an id no longer queued
// (delivered a moment ago) changes nothing.
type QueueWithdrawn struct {
	Now time.Time
	ID  string
}

// ModelResponded delivers a finished model stream.
type ModelResponded struct {
	Now      time.Time
	Response ModelResponse
}

// ApprovalDecided resolves one call of a RequestApproval.
type ApprovalDecided struct {
	Now      time.Time
	CallID   string
	Approved bool
	By       string // "user", "mode:auto", "rule:<id>" ...
	Reason   string
	// Rule is the rule the answer saved ("Always allow"), in words; "" when it saved none.
	Rule string
	// Arguments, when not empty, replace the call's arguments for execution (an edit made while
	// approving). The stored assistant turn keeps the model's original bytes.
	Arguments string
	// Reviewed is the action taken on each hunk of a call the person reviewed hunk by hunk
	// (approval mode review), kept on its approval row.
	Reviewed []string
	// HookStop, when set, is a hook's "continue": false made while deciding the call (the
	// run's error text): the decision is recorded, then the run ends as hook_stopped.
	HookStop string
}

// ToolFinished delivers one call's result of a RunTools.
type ToolFinished struct {
	Now     time.Time
	CallID  string
	Content string
	IsError bool
	// Sandboxed: the command ran inside the sandbox (tools.Meta.Sandboxed).
	Sandboxed bool
	// HookStop, when set, is a hook's "continue": false made once the call ran (the run's
	// error text): the result is recorded, then the run ends as hook_stopped.
	HookStop string
	// Child is what the child session of a task call spent (its rows' sum, priced): it counts
	// against this run's turn, tool-call, token and cost budgets and shows in its meters, so
	// what a parent delegates adds up. Its own rows and run row keep it; the parent's rows
	// never copy it.
	Child *ChildSpend
}

// ChildWaiting says that the child session of task call CallID started (Waiting) or stopped
// waiting for the person: the child's State.Waiting changed, for one of its own calls or one
// of its children's. While any child of the run waits, the run's time is set aside as for its
// own approvals (worktime.go); the child's budgets, fixed when it started, do not change.
type ChildWaiting struct {
	Now     time.Time
	CallID  string
	Waiting bool
}

// Recorded hands the core rows the driver's extensions made that the model is not sent (a
// hook's runs): the core stores them, in order with the run's own rows (Persist).
type Recorded struct{ Rows []Row }

// HookAnswered answers a FireHook: what the hooks of the event said together. Stop is a
// hook's "continue": false (StopReason its words); Block sends the completed run back to the
// model with Reason.
type HookAnswered struct {
	Now        time.Time
	Stop       bool
	StopReason string
	Block      bool
	Reason     string
}

// ChildSpend is a child session's spend as its run row holds it, its own children's included.
type ChildSpend = Counters

// Compacted answers a Compact. OK is false when nothing could be summarised (no cut point, or
// the summary call failed: Err says why).
type Compacted struct {
	Now     time.Time
	OK      bool
	Summary string
	// ContextTokens is the estimated size of the next request once the summary is in place.
	ContextTokens int64
	// Called: a summary call was made (Usage is its spend, stored even when it failed).
	Called bool
	Usage  Usage
	Err    string
}

// CancelRequested asks the run to stop now. Reason, when set, is the status the run ends
// with and Detail its error text (StopHook: a hook said "continue": false); unset, the person
// cancelled.
type CancelRequested struct {
	Now    time.Time
	Reason StopReason
	Detail string
	// Partial is what the model had streamed when the run was stopped in the middle of a
	// model call (the cut stream as the driver's model client returned it), nil when none
	// was going. The core keeps its text as the turn, marked stopped (salvage.go).
	Partial *ModelResponse
}

// Failed reports that the driver could not carry out an effect (a write to the database
// failed, ...). The run ends with StopError; outstanding calls still get their results.
type Failed struct {
	Now time.Time
	Err string
}

// Ticked tells the core the time, so a wall-clock budget can fire while nothing else happens.
type Ticked struct{ Now time.Time }

func (Started) input()         {}
func (ModelResponded) input()  {}
func (ApprovalDecided) input() {}
func (ToolFinished) input()    {}
func (Compacted) input()       {}
func (CancelRequested) input() {}
func (Ticked) input()          {}
func (Failed) input()          {}
func (MessageQueued) input()   {}
func (QueueWithdrawn) input()  {}
func (Stored) input()          {}
func (HookAnswered) input()    {}
func (Recorded) input()        {}
func (ChildWaiting) input()    {}

// Effect is something the core asks the driver to do, in the order returned. The set is closed.
type Effect interface{ effect() }

// CallModel asks for one streamed model call with the session's messages as stored.
type CallModel struct {
	Turn int
}

// RequestApproval asks the approver about each call; each answer comes back as ApprovalDecided.
// Modes names, by call id, the approval mode a call is asked under when it is not the run's:
// the calls that change nothing run without asking, so only a rule or a hook can deny them.
type RequestApproval struct {
	Calls []Call
	Modes map[string]string
}

// Mode is the approval mode the call is asked under: Modes's, else the run's (def).
func (r RequestApproval) Mode(callID, def string) string {
	if m, ok := r.Modes[callID]; ok {
		return m
	}
	return def
}

// RunTools runs approved calls: the batches one after the other, the calls of a batch
// together (in parallel); each result comes back as ToolFinished. A batch of more than one
// call holds only read-only tools.
// Child, when the batches hold task calls, is each child's share of the budgets left
// (Limits.Share): what a task call's child session runs with.
type RunTools struct {
	Batches [][]Call
	Child   *Limits
}

// Calls lists every call of the batches, in order.
func (r RunTools) Calls() []Call { return slices.Concat(r.Batches...) }

// Compact asks for a summary of the session's rows through ThroughSeq: the cut the core chose
// (CompactionCut keeping the latest KeepTurns assistant turns with their results, or CutAt for
// a row the person chose). The answer is Compacted; the core never asks when there is no cut.
type Compact struct {
	ThroughSeq int64
	KeepTurns  int
	Emergency  bool
}

// FireHook fires the hooks of Event (a Stop hook: the run has completed and its rows are
// stored) and feeds their answer as HookAnswered. Active says the run already went on after
// this event's hooks (Claude Code's stop_hook_active).
type FireHook struct {
	Event  string
	Active bool
	// Trigger is PreCompact's: "manual" for a compaction the person asked for, else "auto".
	Trigger string
}

// Persist appends rows to the session in one transaction.
type Persist struct{ Rows []Row }

// Emit publishes one event to subscribers.
type Emit struct{ Payload Payload }

// Done ends the run. The driver stores Result as the run's audit row, then publishes
// run_finished with it.
type Done struct{ Result Result }

func (CallModel) effect()       {}
func (RequestApproval) effect() {}
func (RunTools) effect()        {}
func (Compact) effect()         {}
func (FireHook) effect()        {}
func (Persist) effect()         {}
func (Emit) effect()            {}
func (Done) effect()            {}

// RowKind names a stored chunk kind; the values match the store's.
type RowKind string

// Row kinds the core writes.
const (
	KindUser          RowKind = "user"
	KindAssistant     RowKind = "assistant"
	KindToolResult    RowKind = "tool_result"
	KindApproval      RowKind = "approval"
	KindSummary       RowKind = "summary"
	KindUsage         RowKind = "usage"
	KindNote          RowKind = "note"
	KindImageExcluded RowKind = "image_excluded"
)

// Row is one chunk to append.
type Row interface{ Kind() RowKind }

// UserRow is the person's prompt. QueuedID names the queued message it delivers, if any.
type UserRow struct {
	Text     string     `json:"text"`
	QueuedID string     `json:"queued_id,omitempty"`
	Images   []ImageRef `json:"images,omitempty"`
	Command  string     `json:"command,omitempty"`
}

// AssistantRow is one model turn, stored exactly as received, with the usage and cost of the
// model call that produced it (the journal's record of spend: run counters are kept from it).
type AssistantRow struct {
	Text      string          `json:"text"`
	Reasoning string          `json:"reasoning"`
	ToolCalls []Call          `json:"tool_calls"`
	Raw       json.RawMessage `json:"raw,omitempty"`
	Origin    Origin          `json:"origin,omitzero"`
	Usage     RowUsage        `json:"usage"`
	// Stopped: the person (or a hook) stopped the run while this turn streamed; the row holds
	// the text that had arrived, never the cut turn's calls.
	Stopped bool `json:"stopped,omitempty"`
}

// RowUsage is one model call's usage and its cost at the prices in force.
type RowUsage struct {
	Usage
	CostUSD float64 `json:"cost_usd"`
}

// UsageRow records a model call that left no assistant or summary row (the stream failed,
// the server refused the request, the summary call failed): its spend still happened.
type UsageRow struct {
	Usage  RowUsage `json:"usage"`
	Reason string   `json:"reason"`
}

// ToolResultRow is the single result of one call.
type ToolResultRow struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	// Sandboxed: the command ran inside the sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`
}

// ApprovalRow records who decided a call and why.
type ApprovalRow struct {
	CallID   string   `json:"call_id"`
	Tool     string   `json:"tool"`
	Decision Decision `json:"decision"`
	By       string   `json:"by"`
	Reason   string   `json:"reason"`
	// Rule is the rule the person's answer saved to decide such calls from now on, in words.
	Rule string `json:"rule,omitempty"`
	// Arguments are the arguments the person edited the call to before
	// approving it: what ran. Empty when the call ran as the model sent it.
	Arguments string `json:"arguments,omitempty"`
	// Reviewed is what the person chose for each hunk of a call they reviewed.
	Reviewed []string `json:"reviewed,omitempty"`
	// RequestedAt is when the approver was asked (zero for a call the core decided itself).
	RequestedAt time.Time `json:"requested_at,omitzero"`
}

// SummaryRow replaces the rows up to ThroughSeq in the messages sent to the model; with
// FromSeq > 0 it sets only rows FromSeq..ThroughSeq aside.
type SummaryRow struct {
	Text       string `json:"text"`
	ThroughSeq int64  `json:"through_seq"`
	FromSeq    int64  `json:"from_seq,omitempty"`
	// Usage of the summary call; nil for a set-aside, which calls no model.
	Usage *RowUsage `json:"usage,omitempty"`
}

// ImageExcludedRow leaves images of earlier user rows out of the context from now on, because
// a provider refused a request carrying them; the user rows themselves never change.
type ImageExcludedRow struct {
	Images   []SentImage `json:"images"`
	Reason   string      `json:"reason"`
	Provider string      `json:"provider,omitempty"`
	Model    string      `json:"model,omitempty"`
}

// NoteRow is Loopdesk's own note to the model (the store's note row): sent in the user role
// inside Loopdesk's frame, never as the person's words. Source says what wrote it.
type NoteRow struct {
	Source string `json:"source"`
	Text   string `json:"text"`
}

// Decision is an approval outcome as stored.
type Decision string

// Decisions.
const (
	DecisionApproved Decision = "approved"
	DecisionDenied   Decision = "denied"
)

func (UserRow) Kind() RowKind          { return KindUser }
func (AssistantRow) Kind() RowKind     { return KindAssistant }
func (ToolResultRow) Kind() RowKind    { return KindToolResult }
func (ApprovalRow) Kind() RowKind      { return KindApproval }
func (SummaryRow) Kind() RowKind       { return KindSummary }
func (UsageRow) Kind() RowKind         { return KindUsage }
func (NoteRow) Kind() RowKind          { return KindNote }
func (ImageExcludedRow) Kind() RowKind { return KindImageExcluded }
