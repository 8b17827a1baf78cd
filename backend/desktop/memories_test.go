package desktop_test

import (
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// From the window: the person approves a proposed memory with its text edited and denies
// another; the Memory view lists the approved one with the person's text, its source row and
// the session it came from, and the person adds, edits and removes memories there; the next
// run carries them as a note.
func TestMemoriesFromTheWindow(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "remember", Arguments: `{"text":"tests need make types","scope":"project"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "remember", Arguments: `{"text":"the person is tired","scope":"personal"}`}),
		fakeai.Text("noted"), fakeai.Text("second run"))
	runID, err := app.SendMessage(s.ID, "learn")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id string
		in desktop.DecisionInput
	}{
		{"c1", desktop.DecisionInput{Approved: true, Arguments: `{"text":"Run make types after changing a bound Go type.","scope":"project"}`}},
		{"c2", desktop.DecisionInput{Approved: false, Reason: "not a memory"}},
	} {
		app.rec.waitFor(t, "the card of "+c.id, func(ev map[string]any) bool {
			return ev["type"] == "approval_requested" && ev["call_id"] == c.id
		})
		if err := app.Decide(s.ID, c.id, c.in); err != nil {
			t.Fatal(err)
		}
	}
	app.rec.runFinished(t, runID)
	ms, err := app.Memories(s.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("memories: %+v %v", ms, err)
	}
	m := ms[0]
	if m.Text != "Run make types after changing a bound Go type." || m.Source == nil || m.Source.SessionID != s.ID ||
		m.SourceTitle == "" || !strings.Contains(m.From, "approved by you") {
		t.Fatalf("the approved memory: %+v", m)
	}
	if ms, err = app.AddMemory(s.ID, "personal", "Answer in British English.", s.ID); err != nil || len(ms) != 2 || ms[1].Source != nil || ms[1].From != "added by you" {
		t.Fatalf("added: %+v %v", ms, err)
	}
	if ms, err = app.EditMemory(ms[1].ID, "Answer in British English, briefly.", s.ID); err != nil || ms[1].Text != "Answer in British English, briefly." {
		t.Fatalf("edited: %+v %v", ms, err)
	}
	if all, err := app.Memories(""); err != nil || len(all) != 2 {
		t.Fatalf("every memory: %+v %v", all, err)
	}
	if _, err := app.AddMemory(s.ID, "project", "  ", s.ID); err == nil {
		t.Fatal("an empty memory was added")
	}
	runID, err = app.SendMessage(s.ID, "again")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	body := string(srv.Requests()[len(srv.Requests())-1].Body)
	if !strings.Contains(body, "- [project] Run make types after changing a bound Go type.") ||
		!strings.Contains(body, "- [personal] Answer in British English, briefly.") || strings.Contains(body, "the person is tired\\n") {
		t.Fatalf("the next run's request: %s", body)
	}
	if ms, err = app.RemoveMemory(ms[0].ID, s.ID); err != nil || len(ms) != 1 {
		t.Fatalf("removed: %+v %v", ms, err)
	}
}

// Beside AGENTS.md: how many memories the session's runs carry and about how many tokens.
func TestMemoryFigure(t *testing.T) {
	app := newTestApp(t, "")
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if f, err := app.MemoryFigure(s.ID); err != nil || f.Count != 0 || f.Tokens != 0 {
		t.Fatalf("no memories: %+v %v", f, err)
	}
	app.AddMemory(s.ID, "project", "Run make types after changing a bound Go type.", s.ID)
	app.AddMemory(s.ID, "personal", "Answer in British English.", s.ID)
	if f, err := app.MemoryFigure(s.ID); err != nil || f.Count != 2 || f.Tokens < 40 || f.Tokens > 120 {
		t.Fatalf("two memories: %+v %v", f, err)
	}
}

// Past the note's 64 KiB the oldest memories are left out, and the figure says so.
func TestMemoryFigureWarnsWhenTheOldestAreLeftOut(t *testing.T) {
	app := newTestApp(t, "")
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for range 17 {
		if _, err := app.AddMemory(s.ID, "project", strings.Repeat("y", 4000), s.ID); err != nil {
			t.Fatal(err)
		}
	}
	f, err := app.MemoryFigure(s.ID)
	if err != nil || f.Count != 16 || !strings.Contains(f.Warning, "1 oldest memories left out") {
		t.Fatalf("figure: %+v %v", f, err)
	}
}
