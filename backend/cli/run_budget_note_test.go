package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The request past the soft limit tells the model to finish in Loopdesk's note frame, never as
// the person's words, and the session keeps it as a note row (sessions show), like every other
// note of Loopdesk's.
func TestRunBudgetNoteIsAFramedNoteRow(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "l", Name: "list_dir", Arguments: `{"path":"."}`}), fakeai.Text("done"))
	r := e.run(context.Background(), "", "--json", "--approve", "read-only", "--max-turns", "2", "look around")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	var text string
	_ = json.Unmarshal(last.Content, &text)
	if last.Role != "user" || !strings.HasPrefix(text, store.NotePrefix+"\n") || !strings.Contains(text, "nearly used up (turns)") {
		t.Fatalf("the second request ends with %s %s, want Loopdesk's framed budget note", last.Role, last.Content)
	}

	show := e.sessions("show", runSessionID(t, r), "--json")
	var notes []string
	for _, l := range runLines(t, show.stdout) {
		if l["kind"] == "note" {
			p, _ := l["payload"].(map[string]any)
			notes = append(notes, p["source"].(string)+": "+p["text"].(string))
		}
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "budget: A budget for this run is nearly used up (turns).") {
		t.Fatalf("note rows %q\n%s", notes, show.stdout)
	}
	if human := e.sessions("show", runSessionID(t, r)); !regexp.MustCompile(`\n\d+\s+note\s+\[budget\] A budget for this run is nearly used up`).MatchString(human.stdout) {
		t.Errorf("sessions show does not print the note:\n%s", human.stdout)
	}
}
