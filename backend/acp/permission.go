package acp

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// ByACP is the approval row's "by" for an answer given in an ACP client.
const ByACP = "person:acp"

// The option ids of session/request_permission, one per ACP option kind.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// permissionOptions offers the four answers. The "always" ones name the rule they save —
// tool, argument pattern and scope — as the window's rule dialog does (stack.SuggestRule).
func permissionOptions(rule stack.RuleInput) []sdk.PermissionOption {
	what := fmt.Sprintf("%s calls matching %q", rule.Tool, rule.Pattern)
	if rule.Pattern == "*" {
		what = "every " + rule.Tool + " call"
	}
	return []sdk.PermissionOption{
		{OptionId: optAllowOnce, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once"},
		{OptionId: optAllowAlways, Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always allow " + what + " in this session"},
		{OptionId: optRejectOnce, Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject once"},
		{OptionId: optRejectAlways, Kind: sdk.PermissionOptionKindRejectAlways, Name: "Always reject " + what + " in this session"},
	}
}

// askPermission asks the client about a call the policy sent to a person, and answers the
// approver with what the person chose. It gives up when ask ends — the run ended (t.ask), or
// the call was answered elsewhere first (the window's inbox) — so no answer is owed. c is a copy of what the client was told
// about the call (this runs on its own goroutine; the turn's map belongs to follow).
func (t *turn) askPermission(ask context.Context, p core.ApprovalRequestedPayload, c callView) {
	call := tools.Call{ID: p.CallID, Name: p.Name, Arguments: string(p.Arguments)}
	rule := stack.SuggestRule(t.s.id, call)
	req := sdk.RequestPermissionRequest{SessionId: sdk.SessionId(t.to), Options: permissionOptions(rule),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(p.CallID), Title: sdk.Ptr(title(p.Name, c.args)),
			Kind: sdk.Ptr(Kind(p.Name)), Status: sdk.Ptr(sdk.ToolCallStatusPending), Locations: c.locations,
			RawInput: c.args}}
	resp, err := t.a.conn.RequestPermission(ask, req)
	gone := false
	select {
	case <-t.a.conn.Done():
		gone = true
	default:
	}
	switch {
	case ask.Err() != nil:
		return // the run is over or the call answered elsewhere; the approver no longer waits
	case gone:
		return // the editor left: the run is being cancelled, which answers the call
	case err != nil:
		// Fail closed, and not in the person's name: nobody was asked.
		t.decideIn(t.s.id, call, tools.Decision{Approved: false, By: "error", Reason: "the editor could not ask: " + err.Error()}, nil)
	case resp.Outcome.Selected == nil:
		t.decideIn(t.s.id, call, tools.Decision{Approved: false, By: ByACP, Reason: "the editor cancelled the request"}, nil)
	default:
		t.answer(call, rule, string(resp.Outcome.Selected.OptionId))
	}
}

func (t *turn) answer(call tools.Call, rule stack.RuleInput, option string) {
	switch option {
	case optAllowOnce:
		t.decideIn(t.s.id, call, tools.Decision{Approved: true, By: ByACP}, nil)
	case optRejectOnce:
		t.decideIn(t.s.id, call, tools.Decision{Approved: false, By: ByACP, Reason: "rejected in the editor"}, nil)
	case optAllowAlways, optRejectAlways:
		rule.Effect = store.EffectAllow
		if option == optRejectAlways {
			rule.Effect = store.EffectDeny
		}
		n := stack.NewRule(rule, store.Session{ID: t.s.id, Workspace: t.s.workspace})
		t.decideIn(t.s.id, call, tools.Decision{Approved: option == optAllowAlways, By: ByACP}, &n)
	default:
		t.decideIn(t.s.id, call, tools.Decision{Approved: false, By: ByACP, Reason: fmt.Sprintf("the editor answered an unknown option %q", option)}, nil)
	}
}

// decideIn answers the approver about a call of session sessionID (the prompted session or
// one of its children). With a rule, it first wins the right to answer (the run may have
// been cancelled meanwhile), then saves the rule, then answers: so the rule exists before
// the call runs and the next call sees it.
func (t *turn) decideIn(sessionID string, call tools.Call, d tools.Decision, rule *store.NewRule) {
	ap := t.s.st.Approver
	answer, err := ap.Claim(sessionID, call.ID)
	if errors.Is(err, tools.ErrNotPending) {
		return // cancelled or timed out meanwhile
	} else if err != nil {
		t.a.log.Error("answer a permission request", "session", sessionID, "call", call.ID, "err", err)
		return
	}
	if rule != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		saved, err := t.a.cfg.Stack.DB.AddRule(ctx, *rule)
		cancel()
		if err != nil {
			d.Reason = "answered in the editor, but the rule was not saved: " + err.Error()
		} else {
			d.Rule = saved.Text()
		}
	}
	answer(d)
}
