package desktop_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// writingSession is a session in its own folder (notes.txt says "before") whose first run
// rewrote notes.txt and created made.txt, then answered "wrote them". It returns the session
// and the folder.
func writingSession(t *testing.T, srv *fakeai.Server, app *testApp) (desktop.Session, string) {
	t.Helper()
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", ApprovalMode: "auto"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := app.NewSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		fakeai.ToolCalls(
			fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"notes.txt","content":"after\n"}`},
			fakeai.Call{ID: "w2", Name: "write_file", Arguments: `{"path":"made.txt","content":"new\n"}`}),
		fakeai.Text("wrote them"))
	converse(t, app, s.ID, "change the notes")
	if got := readFile(t, dir, "notes.txt"); got != "after\n" {
		t.Fatalf("notes.txt after the run = %q", got)
	}
	return s, dir
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lastReply is the seq of the session's last assistant row.
func lastReply(t *testing.T, app *testApp, sessionID string) int64 {
	t.Helper()
	v, err := app.OpenSession(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	for _, r := range v.Rows {
		if r.Kind == store.KindAssistant {
			seq = r.Seq
		}
	}
	return seq
}

// keptNotes are the user-role messages of a request that are Loopdesk's kept-files note.
func keptNotes(t *testing.T, body []byte) []string {
	var out []string
	for _, m := range userMessages(t, body) {
		if strings.HasPrefix(m, store.NotePrefix) && strings.Contains(m, "kept them") {
			out = append(out, m)
		}
	}
	return out
}

func TestRegenerateWithRestoreBringsTheFilesBackFirst(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, dir := writingSession(t, srv, app)
	reply := lastReply(t, app, s.ID)

	files, err := app.RegenerateFiles(s.ID, reply)
	if err != nil {
		t.Fatal(err)
	}
	if !files.Offer || !files.Restore || len(files.Changed) != 2 || len(files.Conflicts) != 0 {
		t.Fatalf("RegenerateFiles = %+v; want both files offered for restore, on by default", files)
	}

	srv.Enqueue(fakeai.Text("second try"))
	f, err := app.Regenerate(s.ID, reply, true)
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, f.RunID); end["status"] != "completed" {
		t.Fatalf("the regeneration ended %v", end["status"])
	}
	if got, made := readFile(t, dir, "notes.txt"), readFile(t, dir, "made.txt"); got != "before\n" || made != "<none>" {
		t.Fatalf("after Regenerate with restore: notes.txt = %q, made.txt = %q; want the files as before the message", got, made)
	}
	reqs := srv.Requests()
	if n := keptNotes(t, reqs[len(reqs)-1].Body); len(n) != 0 {
		t.Fatalf("the restored version's request still carries a kept-files note: %q", n)
	}
	// The original says what happened to its folder: a restore row, which its model reads.
	rows, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := rows.Rows[len(rows.Rows)-1]; last.Kind != store.KindRestore {
		t.Fatalf("the original's last row is %s; want the restore", last.Kind)
	}
	// Nothing left to restore: nothing offered.
	if files, err := app.RegenerateFiles(s.ID, reply); err != nil || files.Offer || len(files.Changed) != 0 {
		t.Fatalf("RegenerateFiles after the restore = %+v, %v; want nothing", files, err)
	}
}

func TestRestoreThatConflictsIsReportedAndForksNothing(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, dir := writingSession(t, srv, app)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := app.EditFiles(s.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Conflicts) != 1 || files.Conflicts[0].Path != "notes.txt" {
		t.Fatalf("EditFiles conflicts = %+v; want notes.txt", files.Conflicts)
	}
	before, _ := app.ListSessions()
	_, err = app.EditAndResend(s.ID, 1, "change them differently", true)
	if !errors.Is(err, checkpoint.ErrConflict) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("EditAndResend with restore over an edited file: %v; want a conflict naming notes.txt", err)
	}
	if got := readFile(t, dir, "notes.txt"); got != "mine now\n" {
		t.Fatalf("the person's edit was overwritten: %q", got)
	}
	if after, _ := app.ListSessions(); len(after) != len(before) {
		t.Fatalf("a failed edit left a fork: %d sessions, were %d", len(after), len(before))
	}
}

func TestEditKeepingTheFilesTellsTheModelWhichFilesItKept(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, dir := writingSession(t, srv, app)

	srv.Enqueue(fakeai.Text("noted"))
	f, err := app.EditAndResend(s.ID, 1, "change them differently", false)
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, f.RunID); end["status"] != "completed" {
		t.Fatalf("the edit's run ended %v", end["status"])
	}
	if got := readFile(t, dir, "notes.txt"); got != "after\n" {
		t.Fatalf("kept files changed: notes.txt = %q", got)
	}
	reqs := srv.Requests()
	body := reqs[len(reqs)-1].Body
	notes := keptNotes(t, body)
	if len(notes) != 1 || !strings.Contains(notes[0], "- notes.txt (modified)") || !strings.Contains(notes[0], "- made.txt (created)") {
		t.Fatalf("the edit's request carries kept-files notes %q; want one naming notes.txt and made.txt", notes)
	}
	if um := userMessages(t, body); um[0] != "change them differently" {
		t.Fatalf("the edit's user messages = %q; want the edited message first, then the note", um)
	}
	// The note is the run's own row after the message, so the message stays the version.
	bs, err := app.Branches(f.Session.ID)
	if err != nil || len(bs) != 1 || bs[0].At != 0 {
		t.Fatalf("branches of the edit = %+v, %v", bs, err)
	}

	// A regeneration of the edit's reply abandons nothing that changed files: no note again.
	srv.Enqueue(fakeai.Text("again"))
	r, err := app.Regenerate(f.Session.ID, lastReply(t, app, f.Session.ID), false)
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, r.RunID)
	reqs = srv.Requests()
	if n := keptNotes(t, reqs[len(reqs)-1].Body); len(n) != 1 {
		t.Fatalf("the regeneration's request carries %d kept-files notes; want the edit's one, kept in its rows", len(n))
	}
}
