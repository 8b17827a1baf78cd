package cli

import (
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Approval mode review on a terminal: each hunk of a write_file or edit_file
// call is shown and kept or dropped, then the call is approved with those
// choices (the runner writes only the kept hunks). Editing a hunk's text is
// the window's; here a hunk is kept or dropped. Without a terminal the call is
// denied, as in mode ask.

func (a *runAsker) propose(p core.ApprovalRequestedPayload) {
	if len(p.Hunks) == 0 {
		return
	}
	a.propMu.Lock()
	defer a.propMu.Unlock()
	if a.proposals == nil {
		a.proposals = map[string][]core.ProposedHunk{}
	}
	a.proposals[p.CallID] = p.Hunks
}

func (a *runAsker) takeProposal(callID string) []core.ProposedHunk {
	a.propMu.Lock()
	defer a.propMu.Unlock()
	hs := a.proposals[callID]
	delete(a.proposals, callID)
	return hs
}

func (a *runAsker) review(p tools.Pending, hs []core.ProposedHunk, lines <-chan string) {
	deny := func(reason string) {
		_ = a.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: false, By: tools.ByPerson, Reason: reason})
	}
	fmt.Fprintf(a.errw, "? review %s %s: %d hunk(s)\n", p.Call.Name, core.Cut(p.Call.Arguments, 80), len(hs))
	var choices []tools.HunkChoice
	for _, h := range hs {
		fmt.Fprintf(a.errw, "%s", patchClean(h.Patch))
		for {
			fmt.Fprintf(a.errw, "  hunk %d/%d: [k] keep  [d] drop  [q] deny the whole call: ", h.Hunk, len(hs))
			answer, ok := a.read(lines)
			if !ok {
				deny("no answer (end of input)")
				return
			}
			switch strings.ToLower(answer) {
			case "k", "keep", "y":
				choices = append(choices, tools.HunkChoice{Hunk: h.Hunk, Action: tools.HunkKeep})
			case "d", "drop", "n":
				choices = append(choices, tools.HunkChoice{Hunk: h.Hunk, Action: tools.HunkDrop})
			case "q":
				deny("")
				return
			default:
				fmt.Fprintln(a.errw, "  please answer k, d or q")
				continue
			}
			break
		}
	}
	_ = a.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: true, By: tools.ByPerson, Hunks: choices})
}
