package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Sentinel errors: what the CLI's exit codes and the window's error codes branch on.
var (
	// ErrNotPending: no process holds that call waiting (never did, or it was answered).
	ErrNotPending = tools.ErrNotPending
	// ErrInvalid: the answer or request is malformed (edited arguments that are not an
	// object, an unknown scope, a call id that names calls in two sessions).
	ErrInvalid = store.ErrInvalid
)

// Runs says which run a session is in (loop.Runner.Running).
type Runs interface {
	Running(sessionID string) (runID string, ok bool)
}

// Local is the inbox of one process: every call its Approver holds waiting, described for
// the person, and the answers to them. Safe for concurrent use.
type Local struct {
	DB         *store.DB
	Approver   *tools.Approver
	Runs       Runs
	Workspaces *tools.Manager // to show the diff of a file edit; nil: no diffs
	Origin     Process

	mu    sync.Mutex
	cache map[callKey]Approval // descriptions of waiting calls: they do not change while they wait
}

type callKey struct{ session, call string }

// Approvals lists the calls waiting in this process, oldest first, with WaitingMS as of now.
func (l *Local) Approvals(ctx context.Context) []Approval {
	ps := l.Approver.All()
	now := time.Now()
	out := make([]Approval, 0, len(ps))
	seen := make(map[callKey]bool, len(ps))
	for _, p := range ps {
		k := callKey{p.SessionID, p.Call.ID}
		seen[k] = true
		l.mu.Lock()
		a, ok := l.cache[k]
		l.mu.Unlock()
		if !ok {
			a = l.describe(ctx, p)
			l.mu.Lock()
			if l.cache == nil {
				l.cache = map[callKey]Approval{}
			}
			l.cache[k] = a
			l.mu.Unlock()
		}
		a.WaitingMS = now.Sub(a.RequestedAt).Milliseconds()
		out = append(out, a)
	}
	l.mu.Lock()
	for k := range l.cache {
		if !seen[k] {
			delete(l.cache, k)
		}
	}
	l.mu.Unlock()
	return out
}

// describe is what the inbox shows of p. What cannot be read (a session deleted meanwhile)
// is left empty: the call is still shown, and can still be answered.
func (l *Local) describe(ctx context.Context, p tools.Pending) Approval {
	a := Approval{Item: Item{Kind: KindApproval, SessionID: p.SessionID, CallID: p.Call.ID, Tool: p.Call.Name,
		Arguments: core.ViewArguments(p.Call.Arguments), Origin: l.Origin, Workspace: p.Workspace},
		Review: len(p.Proposal) > 0, Note: p.Note, ReadOnly: p.ReadOnly, Sandboxed: p.Sandboxed, RequestedAt: p.RequestedAt}
	if l.Runs != nil {
		a.RunID, _ = l.Runs.Running(p.SessionID)
	}
	if s, err := l.DB.GetSession(ctx, p.SessionID); err == nil {
		a.SessionTitle, a.Provider, a.Model = s.Title, s.Provider, s.Model
		if a.Workspace == "" {
			a.Workspace = s.Workspace
		}
		if s.ParentCallID != "" {
			parent := s.ParentID
			a.ParentSessionID = &parent
			a.ChildDescription = s.Title // a child session is titled with its task's description
			a.ChildAgent = l.childAgent(ctx, s)
		}
	}
	a.Diff = l.diff(p)
	return a
}

// childAgent is the agent the task call that started child runs as ("" for the default).
func (l *Local) childAgent(ctx context.Context, child store.Session) string {
	if l.Runs == nil {
		return ""
	}
	runID, ok := l.Runs.Running(child.ParentID)
	if !ok {
		return ""
	}
	_, call, err := l.DB.CallRow(ctx, child.ParentID, runID, child.ParentCallID, 1<<62)
	if err != nil {
		return ""
	}
	var args task.Args
	_ = json.Unmarshal([]byte(call.Arguments), &args) // a call that was not JSON has no agent
	return args.Agent
}

// diff is the change a write_file or edit_file call would make, as its approval card shows
// it: the hunks proposed for review when there are some, else the same proposal made now.
func (l *Local) diff(p tools.Pending) string {
	if !tools.Reviewable(p.Call.Name) {
		return ""
	}
	hunks, path := p.Proposal, ""
	if l.Workspaces != nil && p.Workspace != "" {
		if ws, err := l.Workspaces.Acquire(p.Workspace); err == nil {
			var old, new string
			path, old, new, err = tools.Proposal(ws, p.Call)
			ws.Release()
			if err == nil && len(hunks) == 0 {
				hunks = checkpoint.Propose(old, new)
			}
		}
	}
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	if path != "" {
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	}
	for _, h := range hunks {
		b.WriteString(h.Patch)
		if !strings.HasSuffix(h.Patch, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Answer answers a call this process holds. always, when not nil, is saved as a rule once
// this answer has won and before the call runs (so the next call sees it). It returns
// ErrNotPending when the call is not waiting here (or was answered first elsewhere) and
// ErrInvalid for edited arguments that are not a JSON object.
func (l *Local) Answer(ctx context.Context, ans Answer, always *store.NewRule) error {
	d := tools.Decision{Approved: ans.Approve, By: ByInbox, Reason: strings.TrimSpace(ans.Reason)}
	if args := strings.TrimSpace(ans.Arguments); args != "" && ans.Approve {
		if err := checkArguments(args); err != nil {
			return err
		}
		d.Arguments = args
	}
	if d.Approved && d.Arguments == "" {
		d.Hunks = l.keepEveryHunk(ans.SessionID, ans.CallID)
	}
	answer, err := l.Approver.Claim(ans.SessionID, ans.CallID)
	if err != nil {
		return fmt.Errorf("answer call %s: %w", ans.CallID, ErrNotPending)
	}
	var ruleErr error
	if always != nil {
		saved, err := l.DB.AddRule(ctx, *always)
		if err != nil {
			ruleErr = fmt.Errorf("the call was approved, but the rule was not saved: %w", err)
		} else {
			d.Rule = saved.Text()
		}
	}
	answer(d)
	return ruleErr
}

// keepEveryHunk is, for a call waiting in approval mode review, the choice to keep each hunk
// it proposes: the inbox offers no choice per hunk (that is the session's card), so approving
// there approves every hunk, said so on the call's approval row and to the model. nil for any
// other call. Edited arguments are a change of their own, kept whole.
func (l *Local) keepEveryHunk(sessionID, callID string) []tools.HunkChoice {
	for _, p := range l.Approver.Pending(sessionID) {
		if p.Call.ID != callID {
			continue
		}
		var keep []tools.HunkChoice
		for i := range p.Proposal {
			keep = append(keep, tools.HunkChoice{Hunk: i + 1, Action: tools.HunkKeep})
		}
		return keep
	}
	return nil
}

// checkArguments refuses edited arguments that are not a JSON object.
func checkArguments(args string) error {
	var v map[string]any
	if err := json.Unmarshal([]byte(args), &v); err != nil || v == nil {
		return fmt.Errorf("%w: the edited arguments must be a JSON object", ErrInvalid)
	}
	return nil
}

// isNotPending reports whether err says the call was not waiting.
func isNotPending(err error) bool { return errors.Is(err, ErrNotPending) }
