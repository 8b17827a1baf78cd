package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// sentMessages are the messages of a request body, as JSON.
func sentMessages(t *testing.T, r fakeai.Request) string {
	t.Helper()
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return string(body.Messages)
}

// replyText is the agent's message text of the n-th step.
func replyText(evs []event, n int) string {
	var b strings.Builder
	for _, u := range updatesOf(evs, n) {
		if u.SessionUpdate == "agent_message_chunk" {
			b.WriteString(u.text())
		}
	}
	return b.String()
}

// A prompt that is /regenerate runs again from before the last reply in a fork (its id in
// _meta.loopdesk.sessionId), sending exactly the history before that reply; /retry after a
// provider error (500 on every attempt) sends the failed request again in the same session.
func TestPromptRegenerateAndRetry(t *testing.T) {
	e := newEnv(t)
	fail := fakeai.HTTPError(500, `{"error":{"message":"upstream down"}}`)
	e.srv.Enqueue(fakeai.Text("blue"), fakeai.Text("green"), fail, fail, fail, fakeai.Text("one two three"))
	p := e.start(plan{Steps: []step{
		{"op": "initialize"}, {"op": "new", "cwd": e.ws},
		{"op": "prompt", "text": "name a colour"},
		{"op": "prompt", "text": "/regenerate"},
		{"op": "prompt", "text": "count to three"},
		{"op": "prompt", "text": "/retry"},
	}})
	evs := p.finish()
	res := results(evs)
	if len(res) != 6 {
		t.Fatalf("%d step outcomes, want 6:\n%s", len(res), dump(evs))
	}
	var sid struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res[1].Result, &sid)

	var regen struct {
		Meta struct {
			Loopdesk struct {
				SessionID string `json:"sessionId"`
				Status    string `json:"status"`
			} `json:"loopdesk"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res[3].Result, &regen); err != nil || regen.Meta.Loopdesk.Status != "completed" {
		t.Fatalf("/regenerate: %s (%v)", res[3].Result, err)
	}
	fork := regen.Meta.Loopdesk.SessionID
	if fork == "" || fork == sid.SessionID {
		t.Errorf("/regenerate ran in %q, want a fork of %q", fork, sid.SessionID)
	}
	if got := replyText(evs, 3); !strings.Contains(got, "green") || !strings.Contains(got, fork) {
		t.Errorf("/regenerate's text %q: want the new reply and the fork's id", got)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	if got, want := sentMessages(t, reqs[1]), sentMessages(t, reqs[0]); got != want {
		t.Errorf("/regenerate did not send the history before the reply:\ngot  %s\nwant %s", got, want)
	}

	if got := stopReason(t, res[5]); got != "end_turn" || !strings.Contains(replyText(evs, 5), "one two three") {
		t.Fatalf("/retry: stop %q, text %q", got, replyText(evs, 5))
	}
	if got, want := sentMessages(t, reqs[5]), sentMessages(t, reqs[4]); got != want {
		t.Errorf("/retry did not send the failed request again:\ngot  %s\nwant %s", got, want)
	}
	db := e.openDB()
	if all, _ := db.ListSessions(t.Context()); len(all) != 2 {
		t.Errorf("%d sessions, want the prompted one and the regenerated version", len(all))
	}
	if runs, _ := db.ListRuns(t.Context(), sid.SessionID); len(runs) != 3 || string(runs[2].Status) != "completed" {
		t.Errorf("the session's runs: %+v; want three, the retry completed", runs)
	}
}
