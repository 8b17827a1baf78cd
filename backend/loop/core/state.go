package core

import (
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Call is one tool call as the model made it: the one domain type of a call (tools.Call is
// this type). The wire's and the stored row's convert to it next to their types
// (provider.Response.Core, store.PayloadOf).
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ImageRef is an image sent with a prompt: a stored blob, named by its hash (store.ImageRef
// is this type).
type ImageRef struct {
	Hash     string `json:"hash"`
	MIME     string `json:"mime"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Name     string `json:"name,omitempty"`
	Excluded bool   `json:"excluded,omitempty"`
}

// ToolInfo is what the core knows of a tool of the run: its name, whether it only reads, and
// its kind. A call naming a tool not listed is an unknown tool.
type ToolInfo struct {
	Name     string   `json:"name"`
	ReadOnly bool     `json:"read_only"`
	Kind     ToolKind `json:"kind,omitempty"`
}

// ToolKind says what the core must know of a tool beyond its read-only flag.
type ToolKind string

// Tool kinds. The zero kind is an ordinary tool.
const (
	// ToolTask starts a child session (the runner's task tool). It changes nothing itself
	// (the child's own calls are asked about like any call), so it runs without asking, and
	// its RunTools carries the children's share of the budgets left (Limits.Share).
	ToolTask ToolKind = "task"
	// ToolPlan keeps the run's plan (update_plan): it changes nothing, so it runs without asking.
	ToolPlan ToolKind = "plan"
	// ToolNarrowed is a tool the run's agent was not given: never offered, and a call of it
	// is refused without running, whatever the model asks.
	ToolNarrowed ToolKind = "narrowed"
)

// MaxTaskDepth bounds nesting: a session a person started is depth 0, its children 1.
const MaxTaskDepth = 2

// mayNest says whether a run at depth may start children: a session a person started may; a
// child only when its agent grants the task tool, and never at MaxTaskDepth or deeper.
func mayNest(depth int, granted bool) bool {
	return depth == 0 || depth < MaxTaskDepth && granted
}

// Offers reports whether a run in mode offers the model tool t. Plan mode offers only the
// read-only tools, the ones it lets run: the model learns the mode from its tool list and the
// plan notice, not from refusals. A tool not offered stays in Started.Tools, so a call the
// model makes anyway is still refused (route), never run as an unknown tool. A tool the
// run's agent was not given is never offered.
func Offers(mode string, t ToolInfo) bool {
	return t.Kind != ToolNarrowed && (mode != ModePlan || t.ReadOnly)
}

// Phase is where a run stands between two inputs.
type Phase int

// Phases, in the order a tool round goes through them.
const (
	PhaseIdle       Phase = iota // nothing accepted yet; only Started is valid
	PhaseStreaming               // a CallModel is outstanding
	PhaseApproving               // a RequestApproval is outstanding
	PhaseTools                   // a RunTools is outstanding
	PhaseCompacting              // a Compact is outstanding
	PhaseHook                    // a FireHook is outstanding (the run completed; its Stop hook runs)
	PhaseDone                    // Done was returned; every input is an error
)

var phaseNames = [...]string{"idle", "streaming", "approving", "tools", "compacting", "hook", "done"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase(?)"
}

// StopReason is the status a run ends with.
type StopReason string

// Stop reasons (DESIGN.md). Every Done carries exactly one.
const (
	StopCompleted       StopReason = "completed"
	StopMaxTurns        StopReason = "max_turns"
	StopMaxToolCalls    StopReason = "max_tool_calls"
	StopLoopDetected    StopReason = "loop_detected"
	StopTokenBudget     StopReason = "token_budget"
	StopCostBudget      StopReason = "cost_budget"
	StopTimeout         StopReason = "timeout"
	StopContextExceeded StopReason = "context_exceeded"
	StopCancelled       StopReason = "cancelled"
	StopTruncated       StopReason = "truncated"
	StopRefused         StopReason = "refused"
	StopProviderError   StopReason = "provider_error"
	// StopHook: a hook answered "continue": false (Claude Code's contract); the run's error
	// carries the hook's stopReason.
	StopHook StopReason = "hook_stopped"
	// StopError: the runner itself failed (the database could not be written, ...). Not a
	// model or budget outcome; the CLI exits 1.
	StopError StopReason = "error"
	// StopStorageError: the database could not keep the run's rows (its disk is full, or the
	// system reported an I/O error): StorageFailed. The rows stored before stay; the CLI exits 6.
	StopStorageError StopReason = "storage_error"
)

// IsBound reports whether r means "a budget or safety bound stopped the run".
func (r StopReason) IsBound() bool {
	switch r {
	case StopMaxTurns, StopMaxToolCalls, StopLoopDetected, StopTokenBudget, StopCostBudget,
		StopTimeout, StopContextExceeded:
		return true
	}
	return false
}

// ResponseStatus is how a model stream ended.
type ResponseStatus string

// Response statuses, as reported by the provider client.
const (
	ResponseOK            ResponseStatus = "ok"
	ResponseTruncated     ResponseStatus = "truncated"
	ResponseRefused       ResponseStatus = "refused"
	ResponseProviderError ResponseStatus = "provider_error"
	// ResponseContextExceeded: the server refused the request for its length, or cut the
	// answer at the model's context window (its calls never run: the core compacts and
	// asks again, once).
	ResponseContextExceeded ResponseStatus = "context_exceeded"
	// ResponsePaused: the server paused a long turn (Anthropic's pause_turn). The turn is
	// stored as it came, without calls, and the next request continues it.
	ResponsePaused ResponseStatus = "paused"
	// ResponseImageRefused: the server refused the request because of an image it carried
	// (ModelResponse.ImagesSent). The core leaves the images to blame out of the context with
	// one image_excluded row and asks once more; a second refusal ends the run (images.go).
	ResponseImageRefused ResponseStatus = "image_refused"
)

// Errors returned by Next. A driver that sees one has a bug (it fed an input the core did not
// ask for); it should log it and end the run with Failed.
var (
	ErrUnexpectedInput = errors.New("unexpected input")
	ErrUnknownCall     = errors.New("unknown tool call id")
	ErrFinished        = errors.New("run already finished")
	ErrBadInput        = errors.New("invalid input")
)

// Usage is token usage of one model call. InputTokens is the whole input, cache reads and
// writes included (they are reported apart so they can be priced apart); Unreported says the
// provider sent no usage at all, so the zeros are unknown rather than free.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
	Unreported       bool  `json:"unreported,omitempty"`
}

// Origin names what produced a model turn: the configured provider, its wire kind and the
// model. The runner sends a stored turn back in its raw form only to the same origin.
type Origin struct {
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	Model    string `json:"model"`
}

// ModelResponse is a finished model stream. ToolCalls hold only complete calls whose arguments
// parse as JSON; InvalidToolCalls the ones that arrived whole but do not parse (those without
// an id or a name cannot be answered and are dropped: the core neither stores nor answers them).
type ModelResponse struct {
	Text             string         `json:"text,omitempty"`
	Reasoning        string         `json:"reasoning,omitempty"`
	ToolCalls        []Call         `json:"tool_calls,omitempty"`
	InvalidToolCalls []Call         `json:"invalid_tool_calls,omitempty"`
	Status           ResponseStatus `json:"status"`
	Err              string         `json:"err,omitempty"`
	Usage            Usage          `json:"usage"`
	// Raw is the provider's assistant message as received (every field, known or not);
	// Origin what produced it. Both are stored on the turn's row and never read by the core.
	Raw    json.RawMessage `json:"raw,omitempty"`
	Origin Origin          `json:"origin,omitzero"`
	// ImagesSent are the images a refused request carried (ResponseImageRefused), each by
	// its user row; AllImagesRefused says the server takes no images at all.
	ImagesSent       []SentImage `json:"images_sent,omitempty"`
	AllImagesRefused bool        `json:"all_images_refused,omitempty"`
}

// Counters are what a run (or a session) used: model calls (turns), tool calls, tokens as the
// provider reported them (cache reads and writes are parts of the input) and cost. One type
// for the core's running count, a run's result, its row in the store (store.Counters is this
// type) and a child session's spend added to its parent's.
type Counters struct {
	Turns        int   `json:"turns"`
	ToolCalls    int   `json:"tool_calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens read from and
	// written to the provider's prompt cache.
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// Plus is the sum of two counters.
func (c Counters) Plus(d Counters) Counters {
	return Counters{Turns: c.Turns + d.Turns, ToolCalls: c.ToolCalls + d.ToolCalls, InputTokens: c.InputTokens + d.InputTokens,
		OutputTokens: c.OutputTokens + d.OutputTokens, CacheReadTokens: c.CacheReadTokens + d.CacheReadTokens,
		CacheWriteTokens: c.CacheWriteTokens + d.CacheWriteTokens, CostUSD: c.CostUSD + d.CostUSD}
}

// IsZero reports whether nothing was used.
func (c Counters) IsZero() bool { return c == Counters{} }

// Result is the structured outcome of a run: the audit row and the run_finished payload.
// Its JSON is flat: the counters' fields sit between output and started_at.
type Result struct {
	Status StopReason `json:"status"`
	Output string     `json:"output"`
	Counters
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	Error     string    `json:"error"`
	SessionID string    `json:"session_id"`
	RunID     string    `json:"run_id"`
	// Worked is the run's own time, the person's waiting excluded: what the time budget
	// counted. The run's row keeps it, so a session opened later shows that Time meter, not
	// EndedAt - StartedAt.
	Worked time.Duration `json:"-"`
}

// callStatus tracks one call of the current assistant turn.
type callStatus int

const (
	callAwaitingApproval callStatus = iota
	callApproved
	callDone
)

type callState struct {
	Call   Call
	Status callStatus
	// childWaits: the call is a task call whose child session waits for the person
	// (ChildWaiting); the run waits with it while the call runs.
	childWaits bool
	// askedAt is when the approver was asked about the call (zero when it was not): its
	// approval row keeps it, so a person's time to answer runs from it, not from whatever
	// row came before (calls asked together are answered one after another).
	askedAt time.Time
}

// State is the whole of a run as the core sees it. The driver owns it and passes it back on
// every call to Next; Next never keeps a reference. Treat it as opaque except for the
// exported read-only fields, which the driver may show (budgets, phase).
type State struct {
	Phase     Phase
	SessionID string
	RunID     string
	Model     string
	Limits    Limits
	StartedAt time.Time
	Now       time.Time

	// Counters are what the run has used so far (a task call's child spend included).
	Counters
	ContextTokens int64
	Output        string

	calls      []callState
	seen       map[string]int // call signature -> times the model asked for it in this run
	emergency  bool           // the outstanding Compact is the 95% one
	stopAfter  StopReason     // end the run once the current round's results are in
	stopDetail string
	result     *Result

	queued        []QueuedMessage // sent by the person, waiting for the next tool boundary
	recover       *Recovery       // the exchange this run may set aside (after context_exceeded)
	setAsideDone  bool
	pauses        int  // consecutive paused turns (ResponsePaused) just before this one
	imagesRetried bool // the outstanding model call asks again after an image refusal
	lengthRetried bool // the server refused a request for its length once in this run
	retrying      bool // the outstanding Compact answers such a refusal
	recovering    bool // the outstanding Compact opens a recovery run
	compactOnly   bool // the run is one compaction the person asked for
	wrappedUp     bool // the budget note (NoteSourceBudget) is stored: once per run

	// waited is the time spent waiting for the person (waiting: PhaseApproving, or a child
	// waiting for its approvals): the person's, not the run's (worked).
	waited time.Duration

	tools      map[string]ToolInfo // the run's tools by name; fixed at Started
	approval   string              // the run's approval mode (Started.Approval)
	agent      string              // the agent the run works as (Started.Agent)
	stopHook   string              // the event fired when the run completes (Started.StopHook)
	continued  int                 // times a Stop hook sent the completed run back to the model
	preCompact bool                // a PreCompact hook fires before each summary call
	compacting *Compact            // the compaction waiting for its PreCompact hook
	rows       *rowLog             // the session's rows (rows.go): this state sees the first nrows
	nrows      int
	cut        int64 // the last seq the outstanding Compact summarises
	plan       bool  // plan mode: only read-only tools run
	noPerson   bool  // nobody can be asked (Started.NoPerson)
}

// HasTool reports whether the run keeps tool name: one of Started.Tools, less the task tool
// of a run that may not start children. The runner offers and runs only these.
func (s State) HasTool(name string) bool {
	_, ok := s.tools[name]
	return ok
}

// Queued returns the messages still waiting for a tool boundary. After Done they are the
// ones the run did not deliver; the driver starts the next run with them.
func (s State) Queued() []QueuedMessage { return slices.Clone(s.queued) }

// IsQueued reports whether the message id is still waiting for a tool boundary.
func (s State) IsQueued(id string) bool {
	for _, q := range s.queued {
		if q.ID == id {
			return true
		}
	}
	return false
}

// Meters returns the run's meters as the window draws them.
func (s State) Meters() []Meter { return s.meters() }

// Result returns the finished run's result, or nil before Done.
func (s State) Result() *Result { return s.result }

// Outstanding returns the ids of the current turn's calls that have no result yet.
func (s State) Outstanding() []string {
	var ids []string
	for _, c := range s.calls {
		if c.Status != callDone {
			ids = append(ids, c.Call.ID)
		}
	}
	return ids
}
