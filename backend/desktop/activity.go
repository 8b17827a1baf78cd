package desktop

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
)

// EventActivityChanged carries one session's Activity each time its state, its step or its
// run's spend changes (the board's rows update from it).
const EventActivityChanged = "activity:changed"

// ActivityState is where a session sits on the board.
type ActivityState string

// The board's states. NeedsYou: a call of the session waits for the person; Working: a run
// goes on; Done: the last run completed; Failed: the last run ended on an error, a bound or a
// hook (or was interrupted); Idle: no run yet, or the person stopped the last one.
const (
	ActivityNeedsYou ActivityState = "needs_you"
	ActivityWorking  ActivityState = "working"
	ActivityDone     ActivityState = "done"
	ActivityFailed   ActivityState = "failed"
	ActivityIdle     ActivityState = "idle"
)

// ActivityStates lists every state, in the board's order.
var ActivityStates = []ActivityState{ActivityNeedsYou, ActivityWorking, ActivityDone, ActivityFailed, ActivityIdle}

// Activity is what one session is doing, as the board shows it. While a run goes on, Step
// says what it waits for ("Waiting for the model", "Running npm test", "Waiting for
// approval"), CostUSD what it has spent so far and StartedAt when it began (the page counts
// the time from there). Status is the last finished run's stop reason ("" when none).
type Activity struct {
	SessionID string        `json:"session_id"`
	State     ActivityState `json:"state"`
	Step      string        `json:"step"`
	Waiting   int           `json:"waiting"` // calls waiting for the person
	RunID     string        `json:"run_id"`
	StartedAt time.Time     `json:"started_at,omitzero"`
	CostUSD   float64       `json:"cost_usd"`
	Status    string        `json:"status"`
	// Version grows with every change the tracker emits, across sessions. Events can reach
	// the page out of order (the dev server delivers each on a goroutine of its own), so the
	// page keeps, per session, the Activity with the highest Version: a late "Writing the
	// reply" never overwrites the Done that followed it.
	Version uint64 `json:"version"`
}

// Steps the board shows besides a tool's own ("Running npm test").
const (
	stepModel    = "Waiting for the model"
	stepWriting  = "Writing the reply"
	stepThinking = "Thinking"
	stepApproval = "Waiting for approval"
)

// activity follows every session's runs from the bus: it is fed each event once, in order,
// and keeps per session what the board shows. Sessions it has seen no run of get their state
// from their last stored run (read once, on the first SessionActivity).
type activity struct {
	mu       sync.Mutex
	sessions map[string]*sessionActivity
	loaded   bool // the stored last runs were read
	version  uint64
	emit     func(Activity)
}

// sessionActivity is one session's Activity and what computing it needs: the arguments of its
// run's calls (a step names the command) and which calls wait and run.
type sessionActivity struct {
	Activity
	args    map[string]string // call id -> tool name and arguments, from tool_call
	pending map[string]bool
	running map[string]string // call id -> its step
}

func newActivity(emit func(Activity)) *activity {
	return &activity{sessions: map[string]*sessionActivity{}, emit: emit}
}

// startActivity follows the bus from now on, sending each change to the page.
func (c *core) startActivity() *activity {
	a := newActivity(func(act Activity) { c.emitEvent(EventActivityChanged, act) })
	c.st.Runner.Bus().Subscribe(c.ctx, "", a.offer)
	return a
}

func (a *activity) session(id string) *sessionActivity {
	s := a.sessions[id]
	if s == nil {
		s = &sessionActivity{Activity: Activity{SessionID: id, State: ActivityIdle}}
		a.sessions[id] = s
	}
	return s
}

// offer runs on the bus's goroutine: it updates the session's Activity and emits it when
// something the board shows changed.
func (a *activity) offer(ev bus.Event) {
	a.mu.Lock()
	s := a.session(ev.SessionID)
	before := s.Activity
	s.apply(ev)
	s.Version = before.Version
	changed := s.Activity != before
	if changed {
		a.version++
		s.Version = a.version
	}
	after := s.Activity
	a.mu.Unlock()
	if changed && a.emit != nil {
		a.emit(after)
	}
}

// apply moves the session's activity on by one event.
func (s *sessionActivity) apply(ev bus.Event) {
	switch p := ev.Payload.(type) {
	case loopcore.RunStartedPayload:
		s.Activity = Activity{SessionID: s.SessionID, State: ActivityWorking, Step: stepModel, RunID: ev.RunID,
			StartedAt: p.StartedAt, Status: s.Status}
		s.args, s.pending, s.running = map[string]string{}, map[string]bool{}, map[string]string{}
		return
	case loopcore.RunFinishedPayload:
		s.Activity = Activity{SessionID: s.SessionID, State: finishedState(string(p.Status)), RunID: ev.RunID,
			StartedAt: p.StartedAt, CostUSD: p.CostUSD, Status: string(p.Status)}
		s.args, s.pending, s.running = nil, nil, nil
		return
	}
	if s.args == nil { // an event of a run this tracker did not see start
		return
	}
	switch p := ev.Payload.(type) {
	case loopcore.DeltaPayload:
		if len(s.pending) == 0 && len(s.running) == 0 {
			s.Step = stepWriting
			if ev.Type == loopcore.EventReasoningDelta {
				s.Step = stepThinking
			}
		}
	case loopcore.ToolCallPayload:
		s.args[p.ID] = stepOf(p.Name, p.Arguments)
	case loopcore.ApprovalRequestedPayload:
		s.pending[p.CallID] = true
	case loopcore.ApprovalDecidedPayload:
		delete(s.pending, p.CallID)
	case loopcore.ToolStartedPayload:
		step := s.args[p.CallID]
		if step == "" {
			step = stepOf(p.Name, nil)
		}
		s.running[p.CallID] = step
	case loopcore.ToolFinishedPayload:
		delete(s.running, p.CallID)
	case loopcore.UsagePayload:
		s.CostUSD = p.CostUSD
	case loopcore.BudgetPayload:
		s.CostUSD = p.CostUSD
	case loopcore.ModelRetryingPayload:
		s.Step = "Retrying the model (" + p.Cause + ")"
		return
	default:
		return
	}
	s.settle(ev.Type)
}

// settle sets the state and the step from the calls that wait and run: a waiting call first
// (the person is what holds the run up), then a running tool, else the model.
func (s *sessionActivity) settle(t loopcore.EventType) {
	s.Waiting = len(s.pending)
	s.State = ActivityWorking
	switch {
	case s.Waiting > 0:
		s.State, s.Step = ActivityNeedsYou, stepApproval
	case len(s.running) == 1:
		for _, step := range s.running {
			s.Step = step
		}
	case len(s.running) > 1: // read-only calls run side by side
		s.Step = "Running " + strconv.Itoa(len(s.running)) + " tools"
	case t == loopcore.EventApprovalDecided || t == loopcore.EventToolFinished:
		s.Step = stepModel // every call answered: the next request goes out
	case s.Step == stepApproval:
		s.Step = stepModel
	}
}

// finishedState is where a run's stop reason puts its session.
func finishedState(status string) ActivityState {
	switch status {
	case string(loopcore.StopCompleted):
		return ActivityDone
	case string(loopcore.StopCancelled):
		return ActivityIdle
	}
	return ActivityFailed
}

// stepOf says what running a call is, in the board's words.
func stepOf(tool string, raw json.RawMessage) string {
	var args struct {
		Command     string `json:"command"`
		Path        string `json:"path"`
		Pattern     string `json:"pattern"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(raw, &args) // unparsable arguments: the tool's name alone
	short := func(s string) string {
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > 60 {
			return string(r[:59]) + "…"
		}
		return s
	}
	switch {
	case tool == "run_shell_command" && args.Command != "":
		return "Running " + short(args.Command)
	case (tool == "read_file" || tool == "list_dir") && args.Path != "":
		return "Reading " + short(args.Path)
	case (tool == "write_file" || tool == "edit_file") && args.Path != "":
		return "Editing " + short(args.Path)
	case (tool == "search_text" || tool == "find_files") && args.Pattern != "":
		return "Searching for " + short(args.Pattern)
	case tool == "task":
		if args.Description != "" {
			return "Waiting for a child: " + short(args.Description)
		}
		return "Waiting for a child"
	}
	return "Running " + tool
}

// list is every session's Activity: those seen on the bus as they are now, the others from
// their last stored run.
func (a *activity) list(ctx context.Context, c *core) ([]Activity, error) {
	if err := a.load(ctx, c); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Activity, 0, len(a.sessions))
	for _, s := range a.sessions {
		out = append(out, s.Activity)
	}
	return out, nil
}

// load reads each session's last run, once; a session the bus told about meanwhile keeps
// what the bus said.
func (a *activity) load(ctx context.Context, c *core) error {
	a.mu.Lock()
	loaded := a.loaded
	a.mu.Unlock()
	if loaded {
		return nil
	}
	sessions, err := c.db.ListSessions(ctx)
	if err != nil {
		return err
	}
	stored := make([]Activity, 0, len(sessions))
	for _, s := range sessions {
		runs, err := c.db.ListRuns(ctx, s.ID)
		if err != nil {
			return err
		}
		act := Activity{SessionID: s.ID, State: ActivityIdle}
		if n := len(runs); n > 0 {
			r := runs[n-1]
			act.RunID, act.Status, act.CostUSD, act.StartedAt = r.ID, string(r.Status), r.CostUSD, r.StartedAt
			if r.Status != "running" {
				act.State = finishedState(string(r.Status))
			}
		}
		stored = append(stored, act)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, act := range stored {
		if _, seen := a.sessions[act.SessionID]; !seen {
			a.sessions[act.SessionID] = &sessionActivity{Activity: act}
		}
	}
	a.loaded = true
	return nil
}

// SessionActivity is every session's place on the board: its state and, while it runs, its
// current step, cost and start. activity:changed carries each change after this.
func (s *Sessions) SessionActivity() ([]Activity, error) {
	return s.c.activity.list(s.c.context(), s.c)
}
