// Package approvals measures the approval load a person carried, from the journal's approval
// rows: how many calls they answered, what the rules, the mode, hooks and trusted skills
// decided instead, how long they took to answer, and which rules would have spared them the
// most prompts without letting through anything they refused (suggest.go).
//
// It reads; it never decides a call. Candidate rules are proven with the approval policy's
// own matcher (tools.Rule.Allows), so a suggestion allows exactly what the policy would.
package approvals

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Filter says which approval rows count: one session's ("" for every session) from Since on
// (zero: all of them).
type Filter struct {
	SessionID string
	Since     time.Time
}

// Report is the approval load over the filtered rows; its JSON is `loopdesk approvals report
// --json` (docs/approvals.md).
type Report struct {
	// Asked counts the calls a person answered ("person", "person:inbox", "person:acp"),
	// approved or denied, an Always allow answer included.
	Asked          int            `json:"asked"`
	AllowedByRule  map[string]int `json:"allowed_by_rule"`
	AllowedByMode  int            `json:"allowed_by_mode"`
	AllowedByHook  int            `json:"allowed_by_hook"`
	AllowedBySkill int            `json:"allowed_by_skill"`
	// Sandboxed counts the commands that ran confined by the sandbox.
	Sandboxed   int          `json:"sandboxed"`
	Denied      Denied       `json:"denied"`
	AnswerMS    Percentiles  `json:"answer_ms"`
	Suggestions []Suggestion `json:"suggestions"`
}

// Denied counts the refused calls by who refused them.
type Denied struct {
	Person int `json:"person"`
	Rule   int `json:"rule"`
	Mode   int `json:"mode"`
	Hook   int `json:"hook"`
}

// Percentiles of the person's time to answer, in milliseconds: from the time the call started
// waiting (its approval row's requested_at) to the answer; for a row recorded before that was
// kept, from the row written just before the approval.
type Percentiles struct {
	P50 int64 `json:"p50"`
	P90 int64 `json:"p90"`
}

// CallRef names one past call by the session and the seq of its approval row.
type CallRef struct {
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
}

// decided is one approval row with what it decided about.
type decided struct {
	ref       CallRef
	workspace string
	call      tools.Call
	approved  bool
	by        string
	answerMS  int64 // -1 when not a person's answer
	network   bool  // a shell command that asked for network
}

func (d decided) byPerson() bool {
	return d.by == tools.ByPerson || strings.HasPrefix(d.by, tools.ByPerson+":")
}

// Build reads the filtered sessions' rows from db and reports on them.
func Build(ctx context.Context, db *store.DB, f Filter) (Report, error) {
	var sessions []store.Session
	if f.SessionID != "" {
		s, err := db.GetSession(ctx, f.SessionID)
		if err != nil {
			return Report{}, fmt.Errorf("approval report: %w", err)
		}
		sessions = []store.Session{s}
	} else {
		var err error
		if sessions, err = db.ListSessions(ctx); err != nil {
			return Report{}, fmt.Errorf("approval report: %w", err)
		}
		// Oldest first, so the report reads in the order things happened, the same every time.
		sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].CreatedAt.Before(sessions[j].CreatedAt) })
	}
	var rows []decided
	sandboxed := 0
	for _, s := range sessions {
		chunks, err := db.ReportChunks(ctx, s.ID) // not the tool outputs: a megabyte each in a long session
		if err != nil {
			return Report{}, fmt.Errorf("approval report: session %s: %w", s.ID, err)
		}
		d, n := collect(s, chunks, f.Since)
		rows = append(rows, d...)
		sandboxed += n
	}
	r := tally(rows)
	r.Sandboxed = sandboxed
	saved, err := db.ListAllRules(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("approval report: %w", err)
	}
	r.Suggestions = unsaved(Suggest(rows), rows, saved)
	return r, nil
}

// unsaved leaves out the suggestions already saved as allow rules (accepted, or written by
// hand): what is offered is what would change something.
func unsaved(list []Suggestion, rows []decided, saved []store.Rule) []Suggestion {
	folder := map[string]string{}
	for _, d := range rows {
		folder[d.ref.SessionID] = d.workspace
	}
	have := map[store.NewRule]bool{}
	for _, r := range saved {
		if r.Effect == store.EffectAllow {
			have[store.NewRule{Tool: r.Tool, Pattern: r.Pattern, Effect: r.Effect, Scope: r.Scope, ScopeID: r.ScopeID}] = true
		}
	}
	out := []Suggestion{}
	for _, s := range list {
		scopeID := s.WouldAllow[0].SessionID
		if s.Rule.Scope == store.ScopeWorkspace {
			scopeID = folder[scopeID]
		}
		if !have[store.NewRule{Tool: s.Rule.Tool, Pattern: s.Rule.Pattern, Effect: store.EffectAllow, Scope: s.Rule.Scope, ScopeID: scopeID}] {
			out = append(out, s)
		}
	}
	return out
}

// collect reads one session's approval rows (from since on) and counts its sandboxed results.
func collect(s store.Session, chunks []store.Chunk, since time.Time) ([]decided, int) {
	calls := map[string]tools.Call{}
	var out []decided
	sandboxed := 0
	for i, c := range chunks {
		switch c.Kind {
		case store.KindAssistant:
			var p store.AssistantPayload
			if json.Unmarshal(c.Payload, &p) == nil {
				for _, tc := range p.ToolCalls {
					calls[tc.ID] = tools.Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
				}
			}
		case store.KindToolResult:
			var p store.ToolResultPayload
			if c.CreatedAt.Before(since) || json.Unmarshal(c.Payload, &p) != nil {
				continue
			}
			if p.Sandboxed {
				sandboxed++
			}
		case store.KindApproval:
			var p store.ApprovalPayload
			if c.CreatedAt.Before(since) || json.Unmarshal(c.Payload, &p) != nil {
				continue
			}
			call, ok := calls[p.CallID]
			if !ok {
				call = tools.Call{ID: p.CallID, Name: p.Tool}
			}
			if p.Arguments != "" && len(p.Reviewed) == 0 {
				call.Arguments = p.Arguments // edited before approval: what actually ran
			}
			d := decided{ref: CallRef{s.ID, c.Seq}, workspace: s.Workspace, call: call,
				approved: p.Decision == store.DecisionApproved, by: p.By, answerMS: -1, network: tools.AsksNetwork(call)}
			switch {
			case !d.byPerson():
			case !p.RequestedAt.IsZero():
				d.answerMS = max(0, c.CreatedAt.Sub(p.RequestedAt).Milliseconds())
			case i > 0: // recorded before the time it was asked was kept
				d.answerMS = max(0, c.CreatedAt.Sub(chunks[i-1].CreatedAt).Milliseconds())
			}
			out = append(out, d)
		}
	}
	return out, sandboxed
}

// tally counts the rows by who decided them.
func tally(rows []decided) Report {
	r := Report{AllowedByRule: map[string]int{}, Suggestions: []Suggestion{}}
	var times []int64
	for _, d := range rows {
		kind, _, _ := strings.Cut(d.by, ":")
		switch {
		case d.byPerson():
			r.Asked++
			if !d.approved {
				r.Denied.Person++
			}
			if d.answerMS >= 0 {
				times = append(times, d.answerMS)
			}
		case !d.approved:
			switch kind {
			case "rule":
				r.Denied.Rule++
			case "mode":
				r.Denied.Mode++
			case tools.ByHook:
				r.Denied.Hook++
			}
		case kind == "rule":
			r.AllowedByRule[strings.TrimPrefix(d.by, "rule:")]++
		case kind == "mode":
			r.AllowedByMode++
		case kind == tools.ByHook:
			r.AllowedByHook++
		case kind == "skill":
			r.AllowedBySkill++
		}
	}
	r.AnswerMS = percentiles(times)
	return r
}

// percentiles are the nearest-rank p50 and p90 of times (zero for none).
func percentiles(times []int64) Percentiles {
	if len(times) == 0 {
		return Percentiles{}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	rank := func(p int) int64 {
		k := (p*len(times) + 99) / 100
		return times[max(k, 1)-1]
	}
	return Percentiles{P50: rank(50), P90: rank(90)}
}

// ParseAge reads an age such as 7d, 36h or 90m: a whole number of days, or a Go duration.
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("since %q: want a positive age such as 7d, 36h or 90m", s)
}
