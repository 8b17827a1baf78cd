package inbox

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// EndedWindow is how long an ended run stays in the inbox unless dismissed.
const EndedWindow = 24 * time.Hour

// holder is whoever holds a waiting call: this process (Local) or a registered one (peer).
type holder interface {
	Approvals(ctx context.Context) []Approval
	Answer(ctx context.Context, ans Answer, always *store.NewRule) error
}

// Hub is the window's inbox: its own process's calls and those of every process registered
// with it (Serve), and the ended runs of its database. Safe for concurrent use.
type Hub struct {
	local *Local
	db    *store.DB

	mu       sync.Mutex
	peers    map[uint64]*peer
	seq      uint64
	watchers tools.Watchers
	unwatch  func()
}

// NewHub builds the window's inbox on its own process's.
func NewHub(local *Local) *Hub {
	h := &Hub{local: local, db: local.DB, peers: map[uint64]*peer{}}
	h.unwatch = local.Approver.Watch(h.Changed)
	return h
}

// Close stops watching the local Approver.
func (h *Hub) Close() { h.unwatch() }

// Watch calls f, with no lock held, each time the inbox may have changed: a call started or
// stopped waiting here or in a registered process, a process registered or went away, a run
// was dismissed, or Changed was called (a run ended). It returns the cancel.
func (h *Hub) Watch(f func()) (cancel func()) { return h.watchers.Add(f) }

// Changed tells the watchers the inbox may have changed.
func (h *Hub) Changed() { h.watchers.Notify() }

func (h *Hub) holders() []holder {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []holder{h.local}
	ids := make([]uint64, 0, len(h.peers))
	for id := range h.peers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		out = append(out, h.peers[id])
	}
	return out
}

// Approvals lists every waiting call, of this process and of the registered ones, oldest first.
func (h *Hub) Approvals(ctx context.Context) []Approval {
	out, _ := h.approvals(ctx)
	return out
}

func (h *Hub) approvals(ctx context.Context) ([]Approval, []holder) {
	out := []Approval{}
	var who []holder
	for _, hd := range h.holders() {
		for _, a := range hd.Approvals(ctx) {
			out = append(out, a)
			who = append(who, hd)
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return out[idx[i]].RequestedAt.Before(out[idx[j]].RequestedAt) })
	as, hs := make([]Approval, len(out)), make([]holder, len(out))
	for i, k := range idx {
		as[i], hs[i] = out[k], who[k]
	}
	return as, hs
}

// View is the whole inbox.
func (h *Hub) View(ctx context.Context) (View, error) {
	ended, err := EndedRuns(ctx, h.db)
	if err != nil {
		return View{Approvals: h.Approvals(ctx), Ended: []Ended{}}, err
	}
	return View{Approvals: h.Approvals(ctx), Ended: ended}, nil
}

// EndedRuns lists the runs of db that ended in the last EndedWindow and were not dismissed,
// newest first: the inbox's lower part, which needs no window.
func EndedRuns(ctx context.Context, db *store.DB) ([]Ended, error) {
	rs, err := db.EndedRuns(ctx, time.Now().Add(-EndedWindow))
	if err != nil {
		return nil, err
	}
	out := make([]Ended, len(rs))
	for i, r := range rs {
		e := Ended{Item: Item{Kind: KindEnded, SessionID: r.SessionID, SessionTitle: r.Title, RunID: r.RunID,
			Arguments: []byte("{}"), Workspace: r.Workspace, Provider: r.Provider, Model: r.Model,
			Origin: Process{Kind: r.Origin.Kind, PID: r.PID, Client: r.Origin.Client}},
			Status: string(r.Status), Reason: r.Error, CostUSD: r.CostUSD,
			DurationMS: r.EndedAt.Sub(r.StartedAt).Milliseconds(), EndedAt: r.EndedAt}
		if r.ParentID != "" {
			parent := r.ParentID
			e.ParentSessionID = &parent
		}
		out[i] = e
	}
	return out, nil
}

// find is the waiting call callID (of session sessionID, or of any session when "") and
// whoever holds it: ErrNotPending when none waits, ErrInvalid when calls of two sessions
// have that id and no session was named.
func (h *Hub) find(ctx context.Context, sessionID, callID string) (Approval, holder, error) {
	as, hs := h.approvals(ctx)
	found := -1
	for i, a := range as {
		if a.CallID != callID || sessionID != "" && a.SessionID != sessionID {
			continue
		}
		if found >= 0 {
			return Approval{}, nil, fmt.Errorf("%w: call %s waits in sessions %s and %s: name the session",
				ErrInvalid, callID, as[found].SessionID, a.SessionID)
		}
		found = i
	}
	if found < 0 {
		if sessionID != "" {
			return Approval{}, nil, fmt.Errorf("call %s of session %s: %w", callID, sessionID, ErrNotPending)
		}
		return Approval{}, nil, fmt.Errorf("call %s: %w", callID, ErrNotPending)
	}
	return as[found], hs[found], nil
}

// Answer answers a waiting call in whichever process holds it; the first answer wins. A
// SessionID of "" finds the call by its id alone (ErrInvalid when two sessions have one).
func (h *Hub) Answer(ctx context.Context, ans Answer) error {
	a, hd, err := h.find(ctx, ans.SessionID, ans.CallID)
	if err != nil {
		return err
	}
	ans.SessionID = a.SessionID
	return hd.Answer(ctx, ans, nil)
}

// AlwaysPreview is what "Always allow" of a waiting call with scope (session, folder,
// everywhere) would save, and every other waiting call, in any process, it would approve.
func (h *Hub) AlwaysPreview(ctx context.Context, sessionID, callID, scope string) (RulePreview, error) {
	p, err := h.preview(ctx, sessionID, callID, scope)
	return p.RulePreview, err
}

// preview is a RulePreview with what AlwaysAllow needs to carry it out: the call, the rule
// to save, and who holds the call and each of the others.
type preview struct {
	RulePreview
	target Approval
	rule   store.NewRule
	holder holder
	others []holder
}

func (h *Hub) preview(ctx context.Context, sessionID, callID, scope string) (preview, error) {
	sc, err := ruleScope(scope)
	if err != nil {
		return preview{}, err
	}
	target, hd, err := h.find(ctx, sessionID, callID)
	if err != nil {
		return preview{}, err
	}
	in := stack.SuggestRule(target.SessionID, target.pending().Call)
	in.Scope = sc
	rule := stack.NewRule(in, store.Session{ID: target.SessionID, Workspace: target.Workspace})
	if rule.ScopeID == "" {
		return preview{}, fmt.Errorf("%w: session %s has no folder to scope the rule to", ErrInvalid, target.SessionID)
	}
	p := preview{RulePreview: RulePreview{Rule: store.RuleText(rule.Effect, rule.Tool, rule.Pattern, rule.Scope),
		Scope: scope, Others: []Approval{}}, target: target, rule: rule, holder: hd}
	candidate := tools.Rule{ID: "inbox-preview", Tool: rule.Tool, Pattern: rule.Pattern, Effect: rule.Effect,
		Scope: rule.Scope, ScopeID: rule.ScopeID}
	as, hs := h.approvals(ctx)
	for i, a := range as {
		if a.SessionID == target.SessionID && a.CallID == target.CallID {
			continue
		}
		ok, err := h.local.Approver.WouldAllow(ctx, candidate, a.pending())
		if err != nil {
			return preview{}, err
		}
		if ok {
			p.Others = append(p.Others, a)
			p.others = append(p.others, hs[i])
		}
	}
	return p, nil
}

// AlwaysAllow saves the rule AlwaysPreview shows, approves the call (the rule is saved only
// once this answer has won, before the call runs) and then every other waiting call the rule
// matches, in whichever process holds each. It returns how many calls it approved; a call
// answered elsewhere meanwhile is not counted.
func (h *Hub) AlwaysAllow(ctx context.Context, sessionID, callID, scope string) (int, error) {
	p, err := h.preview(ctx, sessionID, callID, scope)
	if err != nil {
		return 0, err
	}
	rule := p.rule
	if err := p.holder.Answer(ctx, Answer{SessionID: p.target.SessionID, CallID: p.target.CallID, Approve: true}, &rule); err != nil {
		if isNotPending(err) {
			return 0, err
		}
		return 1, err // approved, but the rule was not saved: the others are left to the person
	}
	n := 1
	for i, o := range p.Others {
		err := p.others[i].Answer(ctx, Answer{SessionID: o.SessionID, CallID: o.CallID, Approve: true,
			Reason: "always allowed: " + p.Rule}, nil)
		if err == nil {
			n++
		} else if !isNotPending(err) {
			return n, err
		}
	}
	return n, nil
}

// Dismiss takes an ended run off the inbox, for good.
func (h *Hub) Dismiss(ctx context.Context, runID string) error {
	if err := h.db.DismissRun(ctx, runID); err != nil {
		return err
	}
	h.Changed()
	return nil
}
