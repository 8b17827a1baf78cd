package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// versions runs `loopdesk sessions NAME SESSION ARGS...` against e's model and database.
func (e *runEnv) versions(ctx context.Context, name, sessionID string, args ...string) runOut {
	e.t.Helper()
	full := append([]string{name, sessionID, "--db", e.db, "--base-url", e.srv.URL(), "--model", "fake-model", "--json"}, args...)
	var out, errb bytes.Buffer
	code := sessionsWithStdin(ctx, full, strings.NewReader(""), &out, &errb)
	return runOut{code, out.String(), errb.String()}
}

// startedIn is the session run_started names, and run_finished's status.
func startedIn(t *testing.T, stdout string) (sessionID, status string) {
	t.Helper()
	for _, l := range runLines(t, stdout) {
		switch l["type"] {
		case "run_started":
			sessionID, _ = l["session_id"].(string)
		case "run_finished":
			status, _ = l["status"].(string)
		}
	}
	return sessionID, status
}

// sentMessages are the messages of a request body, the system prompt (which names the
// temporary folder) replaced by a placeholder, as indented JSON.
func sentMessages(t *testing.T, r fakeai.Request) string {
	t.Helper()
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	for _, m := range body.Messages {
		if m["role"] == "system" {
			m["content"] = "(system prompt)"
		}
	}
	b, err := json.MarshalIndent(body.Messages, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// golden compares got with testdata/versions/NAME.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "versions", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("request messages differ from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// firstSession runs `loopdesk run PROMPT` answered by replies and returns its session.
func (e *runEnv) firstSession(ctx context.Context, prompt string, replies ...fakeai.Reply) string {
	e.t.Helper()
	e.srv.Enqueue(replies...)
	r := e.run(ctx, "", "--json", prompt)
	id, _ := startedIn(e.t, r.stdout)
	if id == "" {
		e.t.Fatalf("no run_started (exit %d): %s", r.code, r.stderr)
	}
	return id
}

// A regeneration forks before the reply and sends exactly the history before it: the same
// messages as the request that produced the reply, and nothing of the reply itself.
func TestSessionsRegenerateSendsTheHistoryBeforeTheReply(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	first := e.firstSession(ctx, "name a colour", fakeai.Text("blue"))
	before := e.srv.Requests()[0]

	e.srv.Reset()
	e.srv.Enqueue(fakeai.Text("green"))
	r := e.versions(ctx, "regenerate", first)
	if r.code != runExitCompleted {
		t.Fatalf("exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	fork, status := startedIn(t, r.stdout)
	if fork == "" || fork == first || status != "completed" {
		t.Fatalf("run_started.session_id %q (original %q), status %q: want a completed run in a fork", fork, first, status)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := sentMessages(t, reqs[0])
	if want := sentMessages(t, before); got != want {
		t.Errorf("the regeneration did not send the history before the reply:\ngot %s\nwant %s", got, want)
	}
	if strings.Contains(got, "blue") {
		t.Errorf("the regenerated reply was sent back:\n%s", got)
	}
	golden(t, "regenerate", got)

	db, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	orig, _ := db.Chunks(ctx, first)
	forked, _ := db.Chunks(ctx, fork)
	if len(orig) != 2 || !strings.Contains(string(orig[1].Payload), "blue") {
		t.Errorf("the original session changed: %d rows", len(orig))
	}
	if len(forked) != 2 || !strings.Contains(string(forked[1].Payload), "green") {
		t.Errorf("the fork does not end with the new reply: %d rows", len(forked))
	}
}

// An edit sends the edited text in a fork, never the old message.
func TestSessionsEditSendsTheEditedTextNotTheOld(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	first := e.firstSession(ctx, "translate cat", fakeai.Text("chat"))

	e.srv.Reset()
	e.srv.Enqueue(fakeai.Text("chien"))
	r := e.versions(ctx, "edit", first, "--row", "1", "--text", "translate dog")
	if r.code != runExitCompleted {
		t.Fatalf("exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if fork, _ := startedIn(t, r.stdout); fork == "" || fork == first {
		t.Fatalf("run_started.session_id %q: want the fork's, not the original %q", fork, first)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := sentMessages(t, reqs[0])
	if !strings.Contains(got, "translate dog") || strings.Contains(got, "translate cat") || strings.Contains(got, `"chat"`) {
		t.Errorf("the edit's request does not carry only the edited text:\n%s", got)
	}
	golden(t, "edit", got)
}

// A retry after the provider failed (500 on every attempt) sends the same request again, in
// the same session, and the message is stored once.
func TestSessionsRetryAfterA500SendsTheSameRequest(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	fail := fakeai.HTTPError(500, `{"error":{"message":"upstream down"}}`)
	e.srv.Enqueue(fail, fail, fail)
	r := e.run(ctx, "", "--json", "count to three")
	if r.code != runExitModel {
		t.Fatalf("exit %d, want %d (provider error); stderr: %s", r.code, runExitModel, r.stderr)
	}
	first, _ := startedIn(t, r.stdout)
	failed := e.srv.Requests()
	if len(failed) == 0 {
		t.Fatal("no request was sent")
	}

	e.srv.Reset()
	e.srv.Enqueue(fakeai.Text("one two three"))
	r = e.versions(ctx, "retry", first)
	if r.code != runExitCompleted {
		t.Fatalf("exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if in, _ := startedIn(t, r.stdout); in != first {
		t.Errorf("the retry ran in %q, want the same session %q", in, first)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := sentMessages(t, reqs[0])
	if want := sentMessages(t, failed[len(failed)-1]); got != want {
		t.Errorf("the retry did not send the failed request again:\ngot %s\nwant %s", got, want)
	}
	if n := strings.Count(got, "count to three"); n != 1 {
		t.Errorf("the message was sent %d times, want once:\n%s", n, got)
	}
	golden(t, "retry", got)
}

// What the controls refuse: exit 2, no request, no fork.
func TestSessionsVersionsRefuseWhatTheyCannotDo(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	first := e.firstSession(ctx, "hello", fakeai.Text("hi"))
	e.srv.Reset()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"retry", nil, "nothing to retry"},
		{"regenerate", []string{"--row", "1"}, "not a reply"},
		{"edit", []string{"--row", "2", "--text", "x"}, "not a message of yours"},
		{"edit", []string{"--row", "9", "--text", "x"}, "no row 9"},
		{"edit", []string{"--text", "x"}, "needs --row"},
	} {
		r := e.versions(ctx, c.name, first, c.args...)
		if r.code != runExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s %v: exit %d, stderr %q; want 2 and %q", c.name, c.args, r.code, r.stderr, c.want)
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent by refused controls", n)
	}
	db, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if all, _ := db.ListSessions(ctx); len(all) != 1 {
		t.Errorf("%d sessions after refused controls, want 1 (no fork left behind)", len(all))
	}
}
