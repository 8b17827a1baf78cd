package desktop_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// TestAWaitingCallReadsAsItWasAnnounced: a page that opens or reconciles while a call waits
// (OpenSession, Chat.Live, Chat.PendingApprovals) gets the call in exactly the shape
// approval_requested carried it: one pending-call shape, arguments parsed in both, so the card
// is the same however the page learnt of it.
func TestAWaitingCallReadsAsItWasAnnounced(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		fakeai.ToolCalls(
			fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"hi"}`},
			fakeai.Call{ID: "s1", Name: "run_shell_command", Arguments: `{"command":"curl example.org","network":true}`},
		),
		fakeai.Text("done"),
	)
	if _, err := app.SendMessage(s.ID, "go"); err != nil {
		t.Fatal(err)
	}
	announced := map[string]map[string]any{}
	for _, id := range []string{"w1", "s1"} {
		ev := app.rec.waitFor(t, "approval_requested "+id, func(ev map[string]any) bool {
			return ev["type"] == "approval_requested" && ev["call_id"] == id
		})
		p := maps.Clone(ev)
		for _, k := range []string{"type", "session_id", "run_id", "seq", "_event"} { // the base fields, and the recorder's channel
			delete(p, k)
		}
		announced[id] = p
	}
	if args, _ := announced["s1"]["arguments"].(map[string]any); args["network"] != true {
		t.Fatalf("approval_requested arguments = %v; want the parsed object", announced["s1"]["arguments"])
	}

	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	live, err := app.Live(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, list := range map[string]any{"PendingApprovals": app.PendingApprovals(s.ID), "OpenSession": view.Pending, "Live": live.Pending} {
		got := asMaps(t, list)
		if len(got) != 2 {
			t.Fatalf("%s lists %d calls, want 2", name, len(got))
		}
		for _, p := range got {
			if want := announced[p["call_id"].(string)]; !reflect.DeepEqual(p, want) {
				t.Errorf("%s: %v\nwant as announced: %v", name, p, want)
			}
		}
	}
	for _, id := range []string{"w1", "s1"} {
		if err := app.Decide(s.ID, id, desktop.DecisionInput{Approved: false}); err != nil {
			t.Fatal(err)
		}
	}
}

// asMaps is v as the page receives it: its JSON, decoded.
func asMaps(t *testing.T, v any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
