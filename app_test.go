package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// recorder collects what the app emits to the page.
type recorder struct {
	mu     sync.Mutex
	events []map[string]any
	done   chan map[string]any
}

func newRecorder() *recorder { return &recorder{done: make(chan map[string]any, 16)} }

func (r *recorder) emit(name string, data any) {
	if name != EventName {
		return
	}
	ev := data.(map[string]any)
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	if ev["type"] == "run_finished" {
		r.done <- ev
	}
}

func (r *recorder) wait(t *testing.T) map[string]any {
	t.Helper()
	select {
	case ev := <-r.done:
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no run_finished event")
		return nil
	}
}

func (r *recorder) deltas() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		if ev["type"] == "text_delta" {
			out = append(out, ev["text"].(string))
		}
	}
	return out
}

func newTestApp(t *testing.T, baseURL string) (*App, *recorder, string) {
	t.Helper()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "loopdesk.db")
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("LOOPDESK_MODEL", "")
	app := NewApp(db, config.Keys{Dir: filepath.Join(dir, "config"), Getenv: func(string) string { return "" }})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	app.startup(ctx, rec.emit)
	t.Cleanup(func() { cancel(); app.shutdown(ctx) })
	if baseURL != "" {
		if _, err := app.SaveSettings(SettingsInput{BaseURL: baseURL, Model: "fake-model", APIKey: "sk-test-secret"}); err != nil {
			t.Fatal(err)
		}
	}
	return app, rec, dbPath
}

func TestSendMessageStreamsAndStoresBothRows(t *testing.T) {
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Enqueue(fakeai.Text("Hello from the fake server"))
	app, rec, dbPath := newTestApp(t, srv.URL())

	s, err := app.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.SendMessage(s.ID, "  hi there  "); err != nil {
		t.Fatal(err)
	}
	end := rec.wait(t)
	if end["status"] != "completed" {
		t.Fatalf("run ended %v: %v", end["status"], end["error"])
	}
	if d := rec.deltas(); len(d) < 3 || strings.Join(d, "") != "Hello from the fake server" {
		t.Fatalf("text deltas = %q; want the reply in several pieces", d)
	}

	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Rows) != 2 || view.Rows[0].Kind != store.KindUser || view.Rows[1].Kind != store.KindAssistant {
		t.Fatalf("rows = %+v; want user then assistant", view.Rows)
	}
	var a store.AssistantPayload
	if err := json.Unmarshal(view.Rows[1].Payload, &a); err != nil || a.Text != "Hello from the fake server" {
		t.Fatalf("assistant payload = %s (%v)", view.Rows[1].Payload, err)
	}
	if view.Session.Title != "hi there" {
		t.Fatalf("title = %q; want it taken from the first message", view.Session.Title)
	}

	// The request carried the key and the user's text; the key is nowhere in the database.
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer sk-test-secret" {
		t.Fatalf("requests = %d, auth %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
		Stream   bool             `json:"stream"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || !body.Stream || body.Messages[0]["content"] != "hi there" {
		t.Fatalf("request body %s (%v)", reqs[0].Body, err)
	}
	app.shutdown(context.Background())
	for _, f := range []string{dbPath, dbPath + "-wal"} {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "sk-test-secret") {
			t.Fatalf("the API key is in %s", f)
		}
	}
}

func TestProviderErrorsAreClearAndTheSessionStaysUsable(t *testing.T) {
	srv, err := fakeai.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	app, rec, _ := newTestApp(t, srv.URL())
	s, err := app.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		reply fakeai.Reply
		want  string
	}{
		{fakeai.HTTPError(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`), "Incorrect API key provided"},
		{fakeai.HTML(200), "OpenAI-compatible"},
	}
	for _, c := range cases {
		srv.Enqueue(c.reply)
		if _, err := app.SendMessage(s.ID, "try"); err != nil {
			t.Fatal(err)
		}
		end := rec.wait(t)
		if end["status"] != "provider_error" || !strings.Contains(end["error"].(string), c.want) {
			t.Fatalf("run ended %v with %q; want provider_error mentioning %q", end["status"], end["error"], c.want)
		}
		if strings.Contains(end["error"].(string), "sk-test-secret") {
			t.Fatal("the API key leaked into an error")
		}
	}
	if _, err := app.SendMessage(s.ID, "third"); err != nil {
		t.Fatal(err)
	}
	if end := rec.wait(t); end["status"] != "completed" {
		t.Fatalf("after errors the session is not usable: %v %v", end["status"], end["error"])
	}
	view, _ := app.OpenSession(s.ID)
	if len(view.Rows) != 4 {
		t.Fatalf("rows = %d; want the three user rows and one reply, nothing lost", len(view.Rows))
	}
}

func TestTestConnectionReportsTheExactProblem(t *testing.T) {
	srv, err := fakeai.Start(fakeai.WithAPIKey("right"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	app, _, _ := newTestApp(t, "")

	if r := app.TestConnection(srv.URL(), "right"); !r.OK || len(r.Models) == 0 || r.Models[0] != "fake-model" {
		t.Fatalf("good endpoint: %+v", r)
	}
	if r := app.TestConnection(srv.URL(), "wrong"); r.OK || !strings.Contains(r.Error, "401") {
		t.Fatalf("wrong key: %+v", r)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/v1"
	l.Close()
	if r := app.TestConnection(refused, ""); r.OK || !strings.Contains(r.Error, "refused") {
		t.Fatalf("refused: %+v", r)
	}
	if r := app.TestConnection("localhost:11434", ""); r.OK || !strings.Contains(r.Error, "not an http(s) URL") {
		t.Fatalf("bad URL: %+v", r)
	}
}

func TestSettingsPersistAndNeedAnEndpoint(t *testing.T) {
	app, _, _ := newTestApp(t, "")
	s, err := app.GetSettings()
	if err != nil || s.Configured {
		t.Fatalf("fresh settings = %+v, %v; want unconfigured", s, err)
	}
	if _, err := app.SaveSettings(SettingsInput{BaseURL: "ftp://x", Model: "m"}); err == nil {
		t.Fatal("an ftp URL was accepted")
	}
	s, err = app.SaveSettings(SettingsInput{BaseURL: "http://localhost:11434/v1/", Model: "llama3.2", APIKey: "k"})
	if err != nil || !s.Configured || s.BaseURL != "http://localhost:11434/v1" || !s.HasKey || s.KeySource != "file" {
		t.Fatalf("saved settings = %+v, %v", s, err)
	}
	ses, _ := app.NewSession()
	if _, err := app.SendMessage(ses.ID, ""); err == nil {
		t.Fatal("an empty message was accepted")
	}
	if _, err := app.SendMessage("no-such-session", "hi"); err == nil {
		t.Fatal("a message to an unknown session was accepted")
	} else if e := formatError(err).(appError); e.Code != "not_found" {
		t.Fatalf("unknown session error code = %q", e.Code)
	}
}
