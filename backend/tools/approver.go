package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Sentinel errors of the Approver.
var (
	ErrNotPending     = errors.New("no pending approval for this call")
	ErrAlreadyPending = errors.New("an approval for this call is already pending")
)

// Decision is how a call was decided.
//
// Arguments are the arguments that will run. When the person edited them they differ
// from Call.Arguments and have not been validated: whoever runs the call must
// validate them again (Registry.Run does, for every call).
type Decision struct {
	Approved  bool
	By        string // "person", "rule:<id>" or "mode:<mode>"
	Reason    string // typed by the person, or why a rule or mode decided
	Arguments string
	// Rule, on a person's answer with "Always allow" or "Always deny", is the rule it saved,
	// in words (store.RuleText): kept apart from Reason, which stays the person's own words.
	Rule string
	// Hunks: in mode review, the person's choice for each hunk of a write_file or
	// edit_file call (numbered as Propose numbers them; a hunk not named is kept).
	Hunks []HunkChoice
	// Reviewed: the action taken on each hunk of a reviewed call, in order, for its approval
	// row (set by the review extension once it applied Hunks).
	Reviewed []string
	// HookStop is a PreToolUse hook's "continue": false (the run's error text): the run ends
	// once this decision is in.
	HookStop string
}

// ByPerson is Decision.By for a person's answer.
const ByPerson = "person"

// RuleSource lists the rules that apply to a session in a workspace (both scopes).
// The store implements it; errors make the Approver fail closed.
type RuleSource interface {
	ListRules(ctx context.Context, sessionID, workspace string) ([]Rule, error)
}

// Request is one call to decide.
type Request struct {
	SessionID string
	Workspace string // the workspace root, also used to match absolute paths against rules
	Mode      Mode
	Call      Call
	ReadOnly  bool
	// Sandboxed: the call would run in the sandbox with no more reach than the
	// session grants (ShellSandbox.Sandboxed); mode sandboxed runs it unasked.
	Sandboxed bool
	// Proposal (approval mode review): the hunks the call would write, as the card shows
	// them; opaque to the Approver, kept with the pending call (Pending.Proposal).
	Proposal []core.ProposedHunk
	// Hook is what the call's PreToolUse hooks decided (allow, ask, deny; "" for nothing) and
	// HookReason their reason. A hook makes a call stricter than the rules, never looser:
	// see withHook.
	Hook       Effect
	HookReason string
	// Grants pre-approve what the approval mode alone would ask about: the allowed-tools of
	// the skills active in the session (see withGrant).
	Grants []Grant
	// OnPending, which may be nil, is called once the call waits for a person (without any
	// lock held, on the requesting goroutine, before Request blocks), so whoever asked can
	// announce it: a Decide made from then on is accepted.
	OnPending func(Pending)
}

// Pending is a call waiting for the person. By says which mode or rule asked.
type Pending struct {
	SessionID string
	Workspace string
	Call      Call
	ReadOnly  bool
	Sandboxed bool // as in Request: the card says whether the command will run sandboxed
	Proposal  []core.ProposedHunk
	By        string
	// Note is what the card says besides the call: a skill grant that covered the call but
	// was ignored, and why (withGrant).
	Note        string
	RequestedAt time.Time
}

// Approver decides tool calls: by policy when it can, otherwise by asking the person
// and waiting. It is safe for concurrent use; no lock is held while a person thinks,
// so sessions never wait on each other.
type Approver struct {
	rules RuleSource

	mu      sync.Mutex
	seq     uint64
	pending map[pendingKey]*waiter
	// watchers are told each time a call starts or stops waiting.
	watchers Watchers
}

type pendingKey struct{ session, call string }

type waiter struct {
	p   Pending
	seq uint64
	ch  chan Decision // buffered 1: Decide never blocks
}

// NewApprover builds an Approver reading rules from rules (nil: no rules).
func NewApprover(rules RuleSource) *Approver {
	return &Approver{rules: rules, pending: make(map[pendingKey]*waiter)}
}

// Request decides req. It returns at once when the mode or a rule decides; else it
// calls req.OnPending and waits for Decide, returning ctx's error if ctx ends first (the call
// is then no longer pending). Rules that cannot be listed fail closed with an error.
func (a *Approver) Request(ctx context.Context, req Request) (Decision, error) {
	var rules []Rule
	if a.rules != nil {
		var err error
		rules, err = a.rules.ListRules(ctx, req.SessionID, req.Workspace)
		if err != nil {
			return Decision{}, fmt.Errorf("approve %s %s: list rules: %w", req.Call.Name, req.Call.ID, err)
		}
	}
	effect, by := evaluate(req.Mode, rules, req.Call, req.ReadOnly, req.Sandboxed, req.Workspace)
	effect, by = withHook(effect, by, req.Hook)
	if req.Mode == ModePerson && effect == EffectAllow && !strings.HasPrefix(by, "rule:") {
		// A hook's allow never answers for the person (ModePerson).
		effect, by = EffectAsk, "mode:"+string(ModePerson)
	}
	effect, by, granted, note := withGrant(effect, by, req)
	reason := reasonFor(by, rules, effect)
	if by == ByHook && req.HookReason != "" {
		reason = req.HookReason
	} else if granted != "" {
		reason = granted
	}
	switch effect {
	case EffectAllow:
		return Decision{Approved: true, By: by, Reason: reason, Arguments: req.Call.Arguments}, nil
	case EffectDeny:
		return Decision{Approved: false, By: by, Reason: reason, Arguments: req.Call.Arguments}, nil
	}

	key := pendingKey{req.SessionID, req.Call.ID}
	w := &waiter{ch: make(chan Decision, 1), p: Pending{
		SessionID: req.SessionID, Workspace: req.Workspace, Call: req.Call,
		ReadOnly: req.ReadOnly, Sandboxed: req.Sandboxed, Proposal: req.Proposal, By: by, Note: note, RequestedAt: time.Now(),
	}}
	a.mu.Lock()
	if _, dup := a.pending[key]; dup {
		a.mu.Unlock()
		return Decision{}, fmt.Errorf("approve %s %s: %w", req.Call.Name, req.Call.ID, ErrAlreadyPending)
	}
	a.seq++
	w.seq = a.seq
	a.pending[key] = w
	a.mu.Unlock()

	if req.OnPending != nil {
		req.OnPending(w.p)
	}
	a.changed()
	select {
	case d := <-w.ch:
		return d, nil
	case <-ctx.Done():
	}
	a.mu.Lock()
	if a.pending[key] == w {
		delete(a.pending, key)
		a.mu.Unlock()
		a.changed()
		return Decision{}, fmt.Errorf("approve %s %s: %w", req.Call.Name, req.Call.ID, ctx.Err())
	}
	a.mu.Unlock()
	// Decide or Claim won the race: the answer is sent or about to be.
	return <-w.ch, nil
}

// Decide answers a pending call. The first answer wins; any later one, or one for
// a call that is not waiting, gets ErrNotPending. An empty By becomes "person"; an
// approval without Arguments runs the arguments as requested.
func (a *Approver) Decide(sessionID, callID string, d Decision) error {
	answer, err := a.Claim(sessionID, callID)
	if err != nil {
		return err
	}
	answer(d)
	return nil
}

// Claim wins the right to answer a pending call without answering it yet: the call is no
// longer pending (every other answer gets ErrNotPending) and its requester keeps waiting
// until answer is called. The caller must call answer exactly once, promptly: it is how
// work that must happen only when this answer wins (saving an "always allow" rule) happens
// before the call runs.
func (a *Approver) Claim(sessionID, callID string) (answer func(Decision), err error) {
	a.mu.Lock()
	key := pendingKey{sessionID, callID}
	w, ok := a.pending[key]
	if !ok {
		a.mu.Unlock()
		return nil, fmt.Errorf("decide %s in session %s: %w", callID, sessionID, ErrNotPending)
	}
	delete(a.pending, key)
	a.mu.Unlock()
	a.changed()
	return func(d Decision) {
		if d.By == "" {
			d.By = ByPerson
		}
		if d.Arguments == "" {
			d.Arguments = w.p.Call.Arguments
		}
		w.ch <- d // buffered 1 and sent once: never blocks
	}, nil
}

// Pending lists the calls of a session waiting for the person, oldest first.
func (a *Approver) Pending(sessionID string) []Pending {
	return a.list(func(k pendingKey) bool { return k.session == sessionID })
}

// All lists every call of every session waiting for the person, oldest first (the inbox).
func (a *Approver) All() []Pending {
	return a.list(func(pendingKey) bool { return true })
}

// Watch calls f each time a call starts or stops waiting for the person, in any session,
// until the returned cancel is called. f runs with no lock held, on the goroutine that made
// the change: it must return promptly and may call the Approver.
func (a *Approver) Watch(f func()) (cancel func()) { return a.watchers.Add(f) }

func (a *Approver) changed() { a.watchers.Notify() }

// Watchers is a set of functions to call when something changed. The zero value is empty and
// ready; it is safe for concurrent use.
type Watchers struct {
	mu  sync.Mutex
	seq uint64
	fs  map[uint64]func()
}

// Add adds f until the returned cancel is called.
func (w *Watchers) Add(f func()) (cancel func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fs == nil {
		w.fs = map[uint64]func(){}
	}
	w.seq++
	id := w.seq
	w.fs[id] = f
	return func() {
		w.mu.Lock()
		delete(w.fs, id)
		w.mu.Unlock()
	}
}

// Notify calls every function, with no lock held (one may Add or cancel).
func (w *Watchers) Notify() {
	w.mu.Lock()
	fs := make([]func(), 0, len(w.fs))
	for _, f := range w.fs {
		fs = append(fs, f)
	}
	w.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

func (a *Approver) list(keep func(pendingKey) bool) []Pending {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ws []*waiter
	for k, w := range a.pending {
		if keep(k) {
			ws = append(ws, w)
		}
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].seq < ws[j].seq })
	out := make([]Pending, len(ws))
	for i, w := range ws {
		out[i] = w.p
	}
	return out
}

// ScopeSource is a RuleSource that also says whether a rule not yet saved would apply to a
// session in a workspace (the store's: a child session is under its parent's session rules).
type ScopeSource interface {
	Applies(ctx context.Context, rule Rule, sessionID, workspace string) (bool, error)
}

// WouldAllow reports whether saving rule would approve p: the rules that apply to p's
// session and folder now, with rule added, evaluated as Request evaluates them, allow p by
// that rule. A rule of another session or folder than p's never applies. Errors listing the
// rules are returned (fail closed: nothing is approved).
func (a *Approver) WouldAllow(ctx context.Context, rule Rule, p Pending) (bool, error) {
	applies := rule.Scope == store.ScopeEverywhere || rule.Scope == store.ScopeSession && rule.ScopeID == p.SessionID ||
		rule.Scope == store.ScopeWorkspace && rule.ScopeID == p.Workspace
	if s, ok := a.rules.(ScopeSource); ok {
		var err error
		if applies, err = s.Applies(ctx, rule, p.SessionID, p.Workspace); err != nil {
			return false, fmt.Errorf("match call %s against a rule: %w", p.Call.ID, err)
		}
	}
	if !applies {
		return false, nil
	}
	var rules []Rule
	if a.rules != nil {
		var err error
		if rules, err = a.rules.ListRules(ctx, p.SessionID, p.Workspace); err != nil {
			return false, fmt.Errorf("match call %s against a rule: %w", p.Call.ID, err)
		}
	}
	effect, by := evaluate(ModeAsk, append(rules, rule), p.Call, p.ReadOnly, p.Sandboxed, p.Workspace)
	return effect == EffectAllow && by == "rule:"+rule.ID, nil
}

// ByHook is Decision.By (and Pending.By) when a PreToolUse hook decided or asked.
const ByHook = "hook"

// withHook combines the policy's answer with a hook's: the deny mode or a deny rule →
// denied; otherwise a hook's deny → denied; otherwise an ask rule → ask; otherwise a hook's
// ask → ask (in every mode, auto included); otherwise an allow rule → allow; otherwise a
// hook's allow → allow, as an allow rule would; otherwise the mode decides.
func withHook(effect Effect, by string, hook Effect) (Effect, string) {
	rule := strings.HasPrefix(by, "rule:")
	switch {
	case hook == "", effect == EffectDeny:
		return effect, by
	case hook == EffectDeny:
		return EffectDeny, ByHook
	case rule && effect == EffectAsk:
		return effect, by
	case hook == EffectAsk:
		return EffectAsk, ByHook
	case rule:
		return effect, by
	case hook == EffectAllow:
		return EffectAllow, ByHook
	}
	return effect, by
}

func reasonFor(by string, rules []Rule, effect Effect) string {
	for _, r := range rules {
		if "rule:"+r.ID == by {
			return store.RuleText(r.Effect, r.Tool, r.Pattern, r.Scope)
		}
	}
	return fmt.Sprintf("%s by %s", effect, by)
}
