package desktop_test

import (
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// Versions and forks of one session are told apart by their titles in the list and in
// search hits: each says what it is, until the person renames it.
func TestForkTitlesSayWhatEachVersionIs(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("A"), fakeai.Text("B"), fakeai.Text("C"), fakeai.Text("D"))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	converse(t, app, s.ID, "Add a multiply function")
	if err := app.RenameSession(s.ID, "Add a multiply function"); err != nil {
		t.Fatal(err)
	}

	edited, err := app.EditAndResend(s.ID, 1, "Add a divide function", false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, edited.RunID)
	regenerated, err := app.Regenerate(s.ID, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, regenerated.RunID)
	forked, err := app.ForkSession(s.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	// A version of a version says what it is once, not "(regenerated) (regenerated)".
	again, err := app.Regenerate(regenerated.Session.ID, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, again.RunID)

	want := map[string]string{
		s.ID:                   "Add a multiply function",
		edited.Session.ID:      "Add a multiply function (edited)",
		regenerated.Session.ID: "Add a multiply function (regenerated)",
		forked.ID:              "Add a multiply function (fork at #2)",
		again.Session.ID:       "Add a multiply function (regenerated)",
	}
	titles := func() map[string]string {
		list, err := app.ListSessions()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, x := range list {
			out[x.ID] = x.Title
		}
		return out
	}
	got := titles()
	for id, w := range want {
		if got[id] != w {
			t.Errorf("title of %s = %q; want %q", id, got[id], w)
		}
	}

	// The person's own name for a version is kept.
	if err := app.RenameSession(edited.Session.ID, "Divide instead"); err != nil {
		t.Fatal(err)
	}
	if got := titles()[edited.Session.ID]; got != "Divide instead" {
		t.Fatalf("renamed version = %q", got)
	}
}
