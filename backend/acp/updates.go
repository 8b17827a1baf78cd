package acp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// turn follows one run and tells the client what happens, in the order the bus delivers it:
//
//	text_delta        -> agent_message_chunk
//	reasoning_delta   -> agent_thought_chunk
//	tool_call         -> tool_call (status pending, kind, title, locations, rawInput)
//	approval_requested-> session/request_permission (permission.go)
//	tool_started      -> tool_call_update in_progress
//	tool_output       -> tool_call_update whose content is the output so far (its last 32 KiB)
//	tool_finished     -> tool_call_update completed or failed, with the result as content
//	files_changed     -> tool_call_update with a diff per changed file (from checkpoints)
//	run_finished      -> the end of the prompt
//	a child session's -> its progress on the task call; its approvals asked (children.go)
type turn struct {
	a    *Agent
	s    *session        // the session the run is in
	to   string          // the session the client is told about: s, or the one a fork was made from
	ask  context.Context // ends when the run does: unanswered permission requests are withdrawn
	stop context.CancelFunc
	wg   sync.WaitGroup // permission requests in flight

	calls map[string]*callView
	kids  map[string]*childView // child sessions by id (children.go); read on follow's goroutine
	// asking withdraws the permission request of a call that is answered elsewhere first (the
	// window's inbox), by call id; read on follow's goroutine.
	asking map[string]context.CancelFunc
}

// callView is what the client has been told about one call.
type callView struct {
	name      string
	title     string // set for a child's call (children.go)
	output    string // streamed so far (tool_output), tail only
	args      map[string]any
	content   []sdk.ToolCallContent
	locations []sdk.ToolCallLocation
}

func newTurn(a *Agent, s *session) *turn {
	ask, stop := context.WithCancel(context.Background())
	return &turn{a: a, s: s, to: s.id, ask: ask, stop: stop, calls: map[string]*callView{}, kids: map[string]*childView{},
		asking: map[string]context.CancelFunc{}}
}

// send writes one session/update. A client that is gone is not an error here: the run is
// being cancelled and the journal keeps everything.
func (t *turn) send(u sdk.SessionUpdate) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := t.a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(t.to), Update: u}); err != nil {
		t.a.log.Debug("session/update not delivered", "session", t.s.id, "err", err)
	}
}

// follow relays the run's events until it finishes. ctx ending (session/cancel's request
// cancellation, the client leaving) cancels the run; follow still waits for its end, so the
// journal is complete when the prompt returns.
func (t *turn) follow(ctx context.Context, runID string, events <-chan bus.Event) core.Result {
	defer func() { t.stop(); t.wg.Wait() }()
	waited := make(chan struct{})
	go func() {
		_, _ = t.s.st.Runner.Wait(context.Background(), runID)
		close(waited)
	}()
	done := ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case ev := <-events:
			if ev.SessionID != t.s.id {
				t.relayChild(ev) // a child session of this run's task calls (children.go)
				continue
			}
			if ev.RunID != runID {
				continue
			}
			if fin, ok := ev.Payload.(core.RunFinishedPayload); ok {
				return fin.Result
			}
			t.relay(ev)
		case <-done:
			done = nil
			t.s.st.Runner.Cancel(t.s.id)
		case <-waited:
			// run_finished is must-deliver and comes first; this only guards a lost event.
			waited, grace = nil, time.After(5*time.Second)
		case <-grace:
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return runStatus(rctx, t.a.cfg.Stack.DB, t.s.id, runID)
		}
	}
}

func (t *turn) relay(ev bus.Event) {
	switch p := ev.Payload.(type) {
	case core.DeltaPayload:
		if ev.Type == core.EventReasoningDelta {
			t.send(sdk.UpdateAgentThoughtText(p.Text))
		} else {
			t.send(sdk.UpdateAgentMessageText(p.Text))
		}
	case core.ToolCallPayload:
		t.send(t.startCall(p.ID, p.Name, p.Arguments))
	case core.ApprovalRequestedPayload:
		c := *t.call(p.CallID)
		ctx := t.asked(p.CallID)
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.askPermission(ctx, p, c)
		}()
	case core.ApprovalDecidedPayload:
		t.withdraw(p.CallID)
	case core.ToolStartedPayload:
		t.send(t.update(p.CallID, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	case core.ToolOutputPayload:
		t.send(t.output(p.CallID, p.Text))
	case core.ToolFinishedPayload:
		t.send(t.finish(p.CallID, p.Name, p.Content, p.IsError))
		if u, ok := t.plan(p); ok {
			t.send(u)
		}
	case checkpoint.FilesChangedPayload:
		if u, ok := t.diffs(p); ok {
			t.send(u)
		}
	}
}

// asked is the context of the permission request for the call the editor knows as id: it
// ends with the run, or when withdraw is called for it.
func (t *turn) asked(id string) context.Context {
	ctx, withdraw := context.WithCancel(t.ask)
	t.asking[id] = withdraw
	return ctx
}

// withdraw withdraws the editor's request for a call that was answered (in the editor or
// first in the window's inbox), if one is still open.
func (t *turn) withdraw(id string) {
	if withdraw := t.asking[id]; withdraw != nil {
		withdraw()
		delete(t.asking, id)
	}
}

// startCall announces a call the model made.
func (t *turn) startCall(id, name string, rawArgs json.RawMessage) sdk.SessionUpdate {
	c := &callView{name: name}
	_ = json.Unmarshal(rawArgs, &c.args) // arguments that are not an object show no path
	c.locations = locations(t.s.workspace, c.args)
	t.calls[id] = c
	var raw any = c.args
	if c.args == nil {
		raw = string(rawArgs)
	}
	return sdk.StartToolCall(sdk.ToolCallId(id), title(name, c.args),
		sdk.WithStartKind(Kind(name)), sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartLocations(c.locations), sdk.WithStartRawInput(raw))
}

func (t *turn) call(id string) *callView {
	c := t.calls[id]
	if c == nil {
		c = &callView{}
		t.calls[id] = c
	}
	return c
}

func (t *turn) update(id string, opts ...sdk.ToolCallUpdateOpt) sdk.SessionUpdate {
	return sdk.UpdateToolCall(sdk.ToolCallId(id), opts...)
}

// maxLiveOutput bounds the output a running call shows; the result has the whole (capped)
// output anyway.
const maxLiveOutput = 32 << 10

// output shows a running call's output so far, after any diffs it already has.
func (t *turn) output(id, text string) sdk.SessionUpdate {
	c := t.call(id)
	c.output += text
	if n := len(c.output); n > maxLiveOutput {
		cut := n - maxLiveOutput
		for cut < n && !utf8.RuneStart(c.output[cut]) {
			cut++
		}
		c.output = c.output[cut:]
	}
	content := append(append([]sdk.ToolCallContent(nil), c.content...), sdk.ToolContent(sdk.TextBlock(fence(c.name, c.output))))
	return t.update(id, sdk.WithUpdateContent(content))
}

// finish reports a call's one result: its text as content, failed when it is an error
// (denials, cancellations and timeouts included).
func (t *turn) finish(id, name, content string, isError bool) sdk.SessionUpdate {
	c := t.call(id)
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	c.content = append(c.content, sdk.ToolContent(sdk.TextBlock(fence(name, content))))
	return t.update(id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(c.content),
		sdk.WithUpdateRawOutput(map[string]any{"content": content, "is_error": isError}))
}

// fence shows a shell command's output as a code block; other results are text already.
func fence(name, content string) string {
	if name == "run_shell_command" && content != "" {
		return "```\n" + strings.TrimRight(content, "\n") + "\n```"
	}
	return content
}

// Kind is the ACP tool kind of a Loopdesk tool (docs/acp.md). MCP tools are read by the
// verb their name starts with; anything else is "other".
func Kind(name string) sdk.ToolKind {
	switch name {
	case "read_file", "list_dir":
		return sdk.ToolKindRead
	case "find_files", "search_text":
		return sdk.ToolKindSearch
	case "write_file", "edit_file":
		return sdk.ToolKindEdit
	case "run_shell_command":
		return sdk.ToolKindExecute
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if i := strings.Index(rest, "__"); i >= 0 {
			rest = rest[i+2:]
		}
		verbs := []struct {
			prefixes []string
			kind     sdk.ToolKind
		}{
			{[]string{"fetch", "http", "browse"}, sdk.ToolKindFetch},
			{[]string{"delete", "remove", "rm"}, sdk.ToolKindDelete},
			{[]string{"move", "rename"}, sdk.ToolKindMove},
			{[]string{"search", "find", "grep"}, sdk.ToolKindSearch},
			{[]string{"read", "get", "list"}, sdk.ToolKindRead},
			{[]string{"write", "edit", "create", "update"}, sdk.ToolKindEdit},
		}
		low := strings.ToLower(rest)
		for _, v := range verbs {
			for _, p := range v.prefixes {
				if strings.HasPrefix(low, p) {
					return v.kind
				}
			}
		}
	}
	return sdk.ToolKindOther
}

// titles say what a built-in tool's call does by the argument that names its object: the
// verb, then the argument.
var titles = map[string]struct{ verb, arg string }{
	"read_file":   {"Read", "path"},
	"write_file":  {"Write", "path"},
	"edit_file":   {"Edit", "path"},
	"list_dir":    {"List", "path"},
	"find_files":  {"Find", "pattern"},
	"search_text": {"Search for", "pattern"},
}

// title is the one line an editor shows for a call.
func title(name string, args map[string]any) string {
	str := func(k string) string { s, _ := args[k].(string); return s }
	if name == "run_shell_command" {
		return "Run `" + core.Cut(str("command"), 120) + "`"
	}
	if t, ok := titles[name]; ok {
		return t.verb + " " + str(t.arg)
	}
	return name
}

// locations are the absolute paths a call's arguments name (ACP wants absolute paths).
func locations(workspace string, args map[string]any) []sdk.ToolCallLocation {
	p, _ := args["path"].(string)
	if p == "" {
		return nil
	}
	return []sdk.ToolCallLocation{{Path: absPath(workspace, p)}}
}

func absPath(workspace, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(workspace, p)
}

// plan is the ACP plan update an update_plan call that succeeded makes: its steps as entries,
// in order, with their status.
func (t *turn) plan(p core.ToolFinishedPayload) (sdk.SessionUpdate, bool) {
	if p.Name != store.UpdatePlanTool || p.IsError {
		return sdk.SessionUpdate{}, false
	}
	b, err := json.Marshal(t.call(p.CallID).args)
	var plan store.Plan
	if err != nil || json.Unmarshal(b, &plan) != nil || plan.Check() != nil {
		return sdk.SessionUpdate{}, false
	}
	entries := make([]sdk.PlanEntry, len(plan.Plan))
	for i, st := range plan.Plan {
		entries[i] = sdk.PlanEntry{Content: st.Step, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatus(st.Status)}
	}
	return sdk.UpdatePlan(entries...), true
}
