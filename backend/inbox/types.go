package inbox

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Where a waiting call's run came from (Origin.Kind).
const (
	OriginWindow = "window" // a session of the window's own process
	OriginRun    = "run"    // a `loopdesk run` process
	OriginACP    = "acp"    // a `loopdesk acp` process, for an editor
)

// Entry kinds (Item.Kind).
const (
	KindApproval = "approval"
	KindEnded    = "ended"
)

// ByInbox is tools.Decision.By for an answer given in the inbox (the window's or the CLI's).
const ByInbox = "person:inbox"

// Process is the process that holds a call: its kind, its pid, and, for acp, the editor's
// ACP client name (from initialize's clientInfo).
type Process struct {
	Kind   string `json:"kind"`
	PID    int    `json:"pid"`
	Client string `json:"client"`
}

// Item is what every entry of the inbox has: the keys of `loopdesk inbox --json`. Call id,
// tool and arguments are empty ({}) on an ended run; ParentSessionID is nil for a top-level
// session.
type Item struct {
	Kind            string          `json:"kind"`
	SessionID       string          `json:"session_id"`
	SessionTitle    string          `json:"session_title"`
	ParentSessionID *string         `json:"parent_session_id"`
	RunID           string          `json:"run_id"`
	CallID          string          `json:"call_id"`
	Tool            string          `json:"tool"`
	Arguments       json.RawMessage `json:"arguments"`
	WaitingMS       int64           `json:"waiting_ms"`
	Origin          Process         `json:"origin"`
	Workspace       string          `json:"workspace"`
	Provider        string          `json:"provider"`
	Model           string          `json:"model"`
}

// Approval is a call waiting for the person.
type Approval struct {
	Item
	// ChildDescription and ChildAgent: on a child session, its task's description and the
	// agent it runs as ("" for the default agent); "" on a top-level session.
	ChildDescription string `json:"child_description"`
	ChildAgent       string `json:"child_agent"`
	// Diff is, for write_file and edit_file, the change the call would make as a unified
	// diff (the hunks the approval card shows); "" for other calls or when it cannot be made.
	Diff string `json:"diff"`
	// Review: the call waits in approval mode review, its change shown hunk by hunk. The
	// session's card chooses hunk by hunk; approving it here keeps every hunk, explicitly.
	Review      bool      `json:"review"`
	Note        string    `json:"note"`
	ReadOnly    bool      `json:"read_only"`
	Sandboxed   bool      `json:"sandboxed"`
	RequestedAt time.Time `json:"requested_at"`
}

// Ended is a run that ended in the last 24 hours and was not dismissed.
type Ended struct {
	Item
	// Status is how it ended (completed, failed, cancelled, max_turns, hook_stopped, ...),
	// Reason why, in words ("" when it completed).
	Status     string    `json:"status"`
	Reason     string    `json:"reason"`
	CostUSD    float64   `json:"cost_usd"`
	DurationMS int64     `json:"duration_ms"`
	EndedAt    time.Time `json:"ended_at"`
}

// View is the inbox: approvals oldest first, then ended runs newest first.
type View struct {
	Approvals []Approval `json:"approvals"`
	Ended     []Ended    `json:"ended"`
}

// Answer is the person's answer to one waiting call. Arguments, when not empty, are the
// edited arguments (a JSON object) an approval runs instead of the requested ones.
type Answer struct {
	SessionID string `json:"session_id"`
	CallID    string `json:"call_id"`
	Approve   bool   `json:"approve"`
	Reason    string `json:"reason"`
	Arguments string `json:"arguments"`
}

// RulePreview is what "Always allow" would save and do: the rule in words, its scope
// (session, folder or everywhere), and every other waiting call it would approve at once.
type RulePreview struct {
	Rule   string     `json:"rule"`
	Scope  string     `json:"scope"`
	Others []Approval `json:"others"`
}

// Scopes of "Always allow", as the person names them.
const (
	ScopeSession    = "session"
	ScopeFolder     = "folder"
	ScopeEverywhere = "everywhere"
)

// ruleScope maps a scope as the person names it to the store's.
func ruleScope(scope string) (store.Scope, error) {
	switch scope {
	case ScopeSession:
		return store.ScopeSession, nil
	case ScopeFolder:
		return store.ScopeWorkspace, nil
	case ScopeEverywhere:
		return store.ScopeEverywhere, nil
	}
	return "", fmt.Errorf("%w: scope %q (want session, folder or everywhere)", ErrInvalid, scope)
}

// pending is the Approver's view of a listed call, for rule evaluation.
func (a Approval) pending() tools.Pending {
	args := string(a.Arguments)
	var s string
	if json.Unmarshal(a.Arguments, &s) == nil {
		args = s // arguments that were not JSON travel as a JSON string (core.ViewArguments)
	}
	return tools.Pending{SessionID: a.SessionID, Workspace: a.Workspace, ReadOnly: a.ReadOnly, Sandboxed: a.Sandboxed,
		Call: tools.Call{ID: a.CallID, Name: a.Tool, Arguments: args}}
}
