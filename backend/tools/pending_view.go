package tools

import "github.com/loopdesk/loopdesk/backend/loop/core"

// View is a call waiting for a person as the page and the CLI see it: the one shape of
// a pending call, whether it arrives on approval_requested or from a read (Chat.Live,
// Chat.PendingApprovals, Sessions.OpenSession). Its arguments are the parsed JSON, as every
// event carries them (viewArguments), with the proposal's hunks.
func (p Pending) View() core.ApprovalRequestedPayload {
	return core.ApprovalRequestedPayload{CallID: p.Call.ID, Name: p.Call.Name, Arguments: core.ViewArguments(p.Call.Arguments),
		ReadOnly: p.ReadOnly, Sandboxed: p.Sandboxed, Network: AsksNetwork(p.Call), Hunks: p.Proposal, Note: p.Note}
}
