package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/task"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Child sessions over ACP. A task call starts a child session on the same runner; its events
// carry ParentSessionID and ParentCallID (subscribe follows the prompted session's children
// and theirs). The editor knows only the session it prompted, so:
//
//   - the child's progress (what it is doing, its tool calls so far) is the content of the
//     prompted session's task call, as tool_call_update, until the call's result replaces it;
//   - a child's call that needs the person is announced as a tool call of the prompted
//     session, with the id CHILD_SESSION/CALL and a title naming the child (its description
//     and agent), asked with session/request_permission, and updated when it finishes. Only
//     "allow once" and "reject once" are offered: an "always" rule would belong to the child's
//     session, which the editor never sees (the window offers no "always" for a child either).
//     _meta.loopdesk names the child session, the task call, the description and the agent.

// childView is what the turn tracks of one child session (or grandchild).
type childView struct {
	id    string
	top   string // the prompted session's task call it descends from
	label string // `child "description" (agent name)`
	desc  string
	agent string
	step  string
	calls int
	tasks map[string]map[string]any // the arguments of its own task calls, for its children's labels
}

// child returns the child the event belongs to, nil when it descends from no task call the
// turn knows (then nothing of it is shown).
func (t *turn) child(ev bus.Event) *childView {
	if k := t.kids[ev.SessionID]; k != nil {
		return k
	}
	var top string
	var args map[string]any
	switch {
	case ev.ParentSessionID == t.s.id:
		top, args = ev.ParentCallID, t.call(ev.ParentCallID).args
	case t.kids[ev.ParentSessionID] != nil:
		p := t.kids[ev.ParentSessionID]
		top, args = p.top, p.tasks[ev.ParentCallID]
	default:
		return nil
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	k := &childView{id: ev.SessionID, top: top, desc: str("description"), agent: str("agent"), step: "starting",
		tasks: map[string]map[string]any{}}
	k.label = fmt.Sprintf("child %q", k.desc)
	if k.agent != "" {
		k.label += fmt.Sprintf(" (agent %s)", k.agent)
	}
	t.kids[ev.SessionID] = k
	return k
}

// relayChild tells the editor what a child session does (see above).
func (t *turn) relayChild(ev bus.Event) {
	k := t.child(ev)
	if k == nil {
		return
	}
	switch p := ev.Payload.(type) {
	case core.RunStartedPayload:
		k.step = "thinking"
	case core.ToolCallPayload:
		if p.Name == task.Tool {
			var args map[string]any
			_ = json.Unmarshal(p.Arguments, &args)
			k.tasks[p.ID] = args
		}
		return
	case core.ToolStartedPayload:
		k.step, k.calls = "running "+p.Name, k.calls+1
	case core.ApprovalRequestedPayload:
		k.step = "waiting for your approval of " + p.Name
		c := t.announceChildCall(k, p)
		ask := t.asked(childCallID(k.id, p.CallID))
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.askChildPermission(ask, k.id, k.meta(), p, c)
		}()
	case core.ApprovalDecidedPayload:
		t.withdraw(childCallID(k.id, p.CallID))
		return
	case core.ToolFinishedPayload:
		k.step = "thinking"
		if id := childCallID(k.id, p.CallID); t.calls[id] != nil {
			t.send(t.finish(id, p.Name, p.Content, p.IsError))
		}
	case core.RunFinishedPayload:
		k.step = string(p.Result.Status)
	default:
		return
	}
	t.send(t.update(k.top, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(k.progress()))})))
}

// progress is the line the task call shows while its child works.
func (k *childView) progress() string {
	s := "s"
	if k.calls == 1 {
		s = ""
	}
	return fmt.Sprintf("Child session %s, %s: %s · %d tool call%s so far", k.id, k.label, k.step, k.calls, s)
}

// meta is what _meta.loopdesk says of the child.
func (k *childView) meta() map[string]any {
	return map[string]any{"loopdesk": map[string]any{"childSessionId": k.id, "parentCallId": k.top,
		"description": k.desc, "agent": k.agent}}
}

// childCallID is the id the editor knows a child's call by: unique among the prompted
// session's calls, whose ids the child's may repeat.
func childCallID(childSession, callID string) string { return childSession + "/" + callID }

// announceChildCall shows a child's call waiting for the person as a call of the prompted
// session, labelled with the child, and returns what the editor was told.
func (t *turn) announceChildCall(k *childView, p core.ApprovalRequestedPayload) callView {
	id := childCallID(k.id, p.CallID)
	u := t.startCall(id, p.Name, p.Arguments)
	c := t.calls[id]
	c.title = k.label + ": " + title(p.Name, c.args)
	u.ToolCall.Title = c.title
	t.send(u)
	return *c
}

// askChildPermission asks the editor about a child's call (allow or reject once) and answers
// the approver in the child's session. As askPermission, it gives up when ask ends: the
// prompt's run ended (the child's run has then ended too: Stop on the parent stops its
// children), or the call was answered elsewhere first (the window's inbox).
func (t *turn) askChildPermission(ask context.Context, childSession string, meta map[string]any, p core.ApprovalRequestedPayload, c callView) {
	call := tools.Call{ID: p.CallID, Name: p.Name, Arguments: string(p.Arguments)}
	req := sdk.RequestPermissionRequest{SessionId: sdk.SessionId(t.to), Meta: meta,
		Options: []sdk.PermissionOption{
			{OptionId: optAllowOnce, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once"},
			{OptionId: optRejectOnce, Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject once"},
		},
		ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(childCallID(childSession, p.CallID)), Title: sdk.Ptr(c.title),
			Kind: sdk.Ptr(Kind(p.Name)), Status: sdk.Ptr(sdk.ToolCallStatusPending), Locations: c.locations, RawInput: c.args}}
	resp, err := t.a.conn.RequestPermission(ask, req)
	select {
	case <-t.a.conn.Done():
		return // the editor left: the run is being cancelled, which answers the call
	default:
	}
	switch {
	case ask.Err() != nil:
		return
	case err != nil:
		t.decideIn(childSession, call, tools.Decision{Approved: false, By: "error", Reason: "the editor could not ask: " + err.Error()}, nil)
	case resp.Outcome.Selected == nil:
		t.decideIn(childSession, call, tools.Decision{Approved: false, By: ByACP, Reason: "the editor cancelled the request"}, nil)
	case resp.Outcome.Selected.OptionId == optAllowOnce:
		t.decideIn(childSession, call, tools.Decision{Approved: true, By: ByACP}, nil)
	default:
		t.decideIn(childSession, call, tools.Decision{Approved: false, By: ByACP, Reason: "rejected in the editor"}, nil)
	}
}
