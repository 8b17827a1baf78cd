package loop_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

func reviewLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return out
}

// Mode review: the card carries the call's three hunks before anything is written; the
// person keeps hunk 1, drops hunk 2 and edits hunk 3; only that is written, and the
// tool result tells the model which hunks were kept, dropped or edited, with lines.
func TestReviewModeWritesOnlyKeptHunks(t *testing.T) {
	h := newHarness(t)
	before := reviewLines(30)
	h.write("a.txt", strings.Join(before, ""))
	proposed := reviewLines(30)
	proposed[2], proposed[14], proposed[26] = "THREE\n", "FIFTEEN\n", "TWENTY-SEVEN\n"
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "content": strings.Join(proposed, "")})
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w", Name: "write_file", Arguments: string(args)}), fakeai.Text("ok"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "edit", Mode: tools.ModeReview})
	p := <-h.pending
	ev := h.rec.waitFor(t, "approval_requested", ofType(core.EventApprovalRequested, id))
	card := ev.Payload.(core.ApprovalRequestedPayload)
	if len(card.Hunks) != 3 || !strings.Contains(card.Hunks[1].Patch, "+FIFTEEN") || card.Hunks[2].NewStart != 24 {
		t.Fatalf("card hunks: %+v", card.Hunks)
	}
	if got, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(got) != strings.Join(before, "") {
		t.Fatal("written before approval")
	}
	// The pending call keeps its hunks, for a page opened while it waits.
	if kept := p.Proposal; len(kept) != 3 || kept[1].Patch != card.Hunks[1].Patch {
		t.Fatalf("pending proposal: %+v", p.Proposal)
	}
	edited := strings.Replace(card.Hunks[2].New, "TWENTY-SEVEN\n", "twenty-seven, by the person\nand one more\n", 1)
	err := h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: true, By: tools.ByPerson, Hunks: []tools.HunkChoice{
		{Hunk: 1, Action: tools.HunkKeep}, {Hunk: 2, Action: tools.HunkDrop}, {Hunk: 3, Action: tools.HunkEdit, Text: edited}}})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.wait(id); res.Status != core.StopCompleted {
		t.Fatalf("status %s (%s)", res.Status, res.Error)
	}
	want := reviewLines(30)
	want[2] = "THREE\n"
	want[26] = "twenty-seven, by the person\nand one more\n"
	if got, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(got) != strings.Join(want, "") {
		t.Fatalf("a.txt:\n%s", got)
	}
	msgs := h.requests()[1]
	tool := msgs[len(msgs)-1].Content
	for _, s := range []string{"hunk 1 (your lines 1-6, replacing lines 1-6): kept; now lines 1-6",
		"hunk 2 (your lines 12-18, replacing lines 12-18): dropped; lines 12-18 are as they were",
		"hunk 3 (your lines 24-30, replacing lines 24-30): edited by the person; now lines 24-31"} {
		if !strings.Contains(tool, s) {
			t.Errorf("tool result lacks %q:\n%s", s, tool)
		}
	}
	// The approval row keeps what was actually written.
	for _, r := range h.rows(sid) {
		if r.Kind == store.KindApproval && !strings.Contains(string(r.Payload), "twenty-seven, by the person") {
			t.Errorf("approval row without the reviewed arguments: %s", r.Payload)
		}
	}
}

func TestReviewModeDroppingEveryHunkWritesNothing(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\n")
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "e", Name: "edit_file", Arguments: `{"path":"a.txt","old_string":"one","new_string":"ONE"}`}), fakeai.Text("ok"))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "edit", Mode: tools.ModeReview})
	p := <-h.pending
	h.approver.Decide(sid, p.Call.ID, tools.Decision{Approved: true, By: tools.ByPerson, Hunks: []tools.HunkChoice{{Hunk: 1, Action: tools.HunkDrop}}})
	h.wait(id)
	if got, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(got) != "one\n" {
		t.Fatalf("a.txt: %q", got)
	}
	msgs := h.requests()[1]
	if tool := msgs[len(msgs)-1].Content; !strings.Contains(tool, "dropped every hunk") {
		t.Fatalf("tool result: %s", tool)
	}
}
