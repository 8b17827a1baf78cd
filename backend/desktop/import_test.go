package desktop_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// familySession is a window session whose one run saw an image, started a child with a
// task call, rewrote notes.txt and answered; its one hunk is kept, and a fork hangs under
// its second row. It returns the session, its child and the fork.
func familySession(t *testing.T, srv *fakeai.Server, app *testApp) (s, child, fork desktop.Session) {
	t.Helper()
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := app.NewSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv.EnqueueFor("[parent]",
		fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task", Arguments: `{"description":"count","prompt":"[child] count the lines"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"notes.txt","content":"one\nTWO\nthree\n"}`}),
		fakeai.Text("done"))
	srv.EnqueueFor("[child]", fakeai.Text("three lines"))
	runID, err := app.SendWithImages(s.ID, "[parent] fix the notes", []desktop.ImageInput{{Name: "a.png", Data: pngBase64(t, 8, 6)}})
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run: %v", end)
	}
	hs, err := app.Hunks(s.ID)
	if err != nil || len(hs) != 1 {
		t.Fatalf("hunks: %+v %v", hs, err)
	}
	if _, err := app.KeepHunk(s.ID, hs[0].Seq, hs[0].Path, hs[0].Hunk); err != nil {
		t.Fatal(err)
	}
	kids, err := app.Children(s.ID)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children: %+v %v", kids, err)
	}
	v, err := app.OpenSession(kids[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	child = v.Session
	if fork, err = app.ForkSession(s.ID, 2); err != nil {
		t.Fatal(err)
	}
	return s, child, fork
}

// sessionFacts is what a person sees of a session after opening it: its rows, its lineage,
// its changed files, its hunks with their review state, and its images.
func sessionFacts(t *testing.T, app *testApp, id string) string {
	t.Helper()
	v, err := app.OpenSession(id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "title %q parent %v call %q fork_seq %d\n", v.Session.Title, v.Session.ParentID != "", v.Session.ParentCallID, v.Session.ForkSeq)
	for _, r := range v.Rows {
		fmt.Fprintf(&b, "%d %s %s\n", r.Seq, r.Kind, r.Payload)
		if r.Kind == store.KindUser {
			for _, im := range payload[store.UserPayload](t, r.Chunk).Images {
				if url, err := app.Image(im.Hash); err != nil || !strings.HasPrefix(url, "data:image/png;base64,") {
					t.Fatalf("image %s of row %d: %.40q %v", im.Hash, r.Seq, url, err)
				}
			}
		}
	}
	changes, err := app.Changes(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		fmt.Fprintf(&b, "change %d %s %s\n", c.Seq, c.Path, c.Change)
	}
	hunks, err := app.Hunks(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hunks {
		fmt.Fprintf(&b, "hunk %d %s %d %s %q\n", h.Seq, h.Path, h.Hunk, h.State, h.Patch)
	}
	return b.String()
}

// importInWindow imports the file through the window's Import (its dialog picks path).
func importInWindow(t *testing.T, app *testApp, path string) desktop.Session {
	t.Helper()
	app.dialogs.open = path
	imp, err := app.ImportSession()
	if err != nil {
		t.Fatalf("the window's import of %s: %v", filepath.Base(path), err)
	}
	return imp
}

// The window imports its own export, and the command line's, of a session whose calls changed
// a file (with a kept hunk), that carries an image and a child, and of the child and a fork:
// each comes back as the person left it.
func TestWindowImportsWhatTheWindowAndTheCLIExported(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, "")
	s, child, fork := familySession(t, srv, app)
	facts := map[string]string{}
	for _, x := range []desktop.Session{s, child, fork} {
		facts[x.ID] = sessionFacts(t, app, x.ID)
	}
	if !strings.Contains(facts[s.ID], "change 7 notes.txt modified") || !strings.Contains(facts[s.ID], " kept ") {
		t.Fatalf("the session to export has no kept change:\n%s", facts[s.ID])
	}

	t.Run("window to window", func(t *testing.T) {
		for _, x := range []desktop.Session{s, child, fork} {
			app.dialogs.save = filepath.Join(t.TempDir(), "export.jsonl")
			if _, err := app.ExportSession(x.ID); err != nil {
				t.Fatal(err)
			}
			imp := importInWindow(t, app, app.dialogs.save)
			if got := sessionFacts(t, app, imp.ID); got != facts[x.ID] {
				t.Errorf("%q after the window's export and import:\n%s\nwant:\n%s", x.Title, got, facts[x.ID])
			}
		}
	})
	t.Run("cli to another window", func(t *testing.T) {
		// Another machine's window: a database of its own, so images and contents travel in
		// the file (--contents); the parent's id is the original's, as on the first machine.
		other := newTestApp(t, "")
		for _, x := range []desktop.Session{s, child, fork} {
			var out, errb bytes.Buffer
			if code := cli.Sessions(context.Background(), []string{"export", "--contents", "--db", app.dbPath, x.ID}, &out, &errb); code != 0 {
				t.Fatalf("loopdesk sessions export: %d %s", code, errb.String())
			}
			path := filepath.Join(t.TempDir(), "cli.jsonl")
			if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			imp := importInWindow(t, other, path)
			if got := sessionFacts(t, other, imp.ID); got != facts[x.ID] {
				t.Errorf("%q after the CLI's export and the window's import:\n%s\nwant:\n%s", x.Title, got, facts[x.ID])
			}
		}
	})
}
