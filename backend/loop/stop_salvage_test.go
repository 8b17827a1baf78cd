package loop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Stop while a reply streams keeps what the person read: the text that had arrived is the
// session's assistant row, marked stopped and the run's answer; the tool call the cut reply
// was about to make never runs; and the next run's request carries the text as the
// assistant's turn, before the person's next message.
func TestStopKeepsTheStreamedTextAndNotTheCutCalls(t *testing.T) {
	h := newHarness(t)
	reply := "The build has three stages: first it fetches the modules, then it compiles every " +
		"package, and at the end it links the binary and strips it before packaging."
	h.srv.Enqueue(fakeai.TextThenTools(reply,
		fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"made.txt","content":"x"}`}).WithDelay(40 * time.Millisecond))
	sid := h.session()
	id := h.start(loop.RunSpec{SessionID: sid, Prompt: "explain the build"})
	deltas := 0
	h.rec.waitFor(t, "a few text deltas", func(e bus.Event) bool {
		if e.Type == core.EventTextDelta && e.RunID == id {
			deltas++
		}
		return deltas >= 3
	})
	h.runner.Cancel(sid)
	res := h.wait(id)
	var streamed strings.Builder
	for _, e := range h.rec.all() {
		if d, ok := e.Payload.(core.DeltaPayload); ok && e.Type == core.EventTextDelta && e.RunID == id {
			streamed.WriteString(d.Text)
		}
	}
	if res.Status != core.StopCancelled || streamed.Len() == 0 || streamed.Len() >= len(reply) {
		t.Fatalf("run %s after %d streamed bytes of %d; want cancelled mid-reply", res.Status, streamed.Len(), len(reply))
	}
	var got *store.AssistantPayload
	for _, c := range h.rows(sid) {
		switch c.Kind {
		case store.KindAssistant:
			var p store.AssistantPayload
			if err := json.Unmarshal(c.Payload, &p); err != nil {
				t.Fatal(err)
			}
			got = &p
		case store.KindToolResult, store.KindApproval:
			t.Fatalf("the cut reply's call left a %s row: %s", c.Kind, c.Payload)
		}
	}
	if got == nil || got.Text != streamed.String() || !got.Stopped || len(got.ToolCalls) != 0 || res.Output != got.Text {
		t.Fatalf("stored reply %+v, answer %q; want the streamed text %q, marked stopped, without calls", got, res.Output, streamed.String())
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); !os.IsNotExist(err) {
		t.Fatalf("the cut reply's write_file ran: %v", err)
	}

	h.srv.Enqueue(fakeai.Text("Go on from the compile stage."))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "go on"}); res.Status != core.StopCompleted {
		t.Fatalf("next run: %+v", res)
	}
	reqs := h.requests()
	next := reqs[len(reqs)-1]
	n := len(next)
	if n < 3 || next[n-2].Role != "assistant" || next[n-2].Content != streamed.String() || len(next[n-2].ToolCalls) != 0 ||
		next[n-1].Role != "user" || next[n-1].Content != "go on" {
		t.Fatalf("the next request does not carry the stopped reply before the new message: %+v", next)
	}
	h.checkPairing()
}
