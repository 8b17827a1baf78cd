package desktop_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// The window edits providers.json, tests a provider, and each session runs on the provider
// and model its header shows; a change applies from the next run.
func TestWindowProvidersAndSessionModel(t *testing.T) {
	def := startFake(t)
	local := startFake(t, fakeai.WithAPIKey("sk-local-file-secret"))
	app := newTestApp(t, def.URL())
	keyFile := filepath.Join(t.TempDir(), "local.key")
	if err := os.WriteFile(keyFile, []byte("sk-local-file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	entry := config.Provider{Name: "local", Kind: config.KindOpenAI, BaseURL: local.URL(), APIKeyFile: keyFile,
		Models: []string{"m-local"}}

	if r := app.TestProvider(entry); !r.OK || len(r.Models) == 0 {
		t.Fatalf("test connection of an unsaved entry: %+v", r)
	}
	if _, err := app.SaveProviders([]config.Provider{{Name: "bad", Kind: "nope", BaseURL: "http://x"}}); !errors.Is(err, desktop.ErrInvalidInput) ||
		!strings.Contains(err.Error(), `provider "bad": unknown kind "nope"`) {
		t.Fatalf("bad entry: %v", err)
	}
	v, err := app.SaveProviders([]config.Provider{entry})
	if err != nil {
		t.Fatal(err)
	}
	if v.Error != "" || len(v.Providers) != 1 || len(v.Infos) != 2 || v.Infos[0].Name != "default" ||
		v.Infos[1].Key != (config.KeyOrigin{From: "file", Name: keyFile, Found: true}) {
		t.Fatalf("after saving: %+v", v)
	}

	s, err := app.NewSession("")
	if err != nil || s.Provider != "default" || s.Model != "fake-model" {
		t.Fatalf("new session: %+v %v", s, err)
	}
	if _, err := app.SetSessionModel(s.ID, "nobody", "x"); !errors.Is(err, config.ErrUnknownProvider) {
		t.Fatalf("unknown provider: %v", err)
	}
	def.Enqueue(fakeai.Text("from default"))
	runID, err := app.SendMessage(s.ID, "first")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)

	s, err = app.SetSessionModel(s.ID, "local", "m-local")
	if err != nil || s.Provider != "local" || s.Model != "m-local" {
		t.Fatalf("set: %+v %v", s, err)
	}
	local.Enqueue(fakeai.Text("from local"))
	runID, err = app.SendMessage(s.ID, "second")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("second run: %v", end)
	}
	if chats(def) != 1 || chats(local) != 1 {
		t.Fatalf("chat requests: default %d, local %d; want one each", chats(def), chats(local))
	}
	runs, err := app.Runs(s.ID)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	got := map[string]string{}
	for _, r := range runs {
		got[r.Provider] = r.Model
	}
	if got["default"] != "fake-model" || got["local"] != "m-local" {
		t.Fatalf("run rows: %+v", runs)
	}
	view, err := app.OpenSession(s.ID)
	if err != nil || view.Session.Provider != "local" || view.Session.Model != "m-local" {
		t.Fatalf("the header's session: %+v %v", view.Session, err)
	}

	// No key in the database or providers.json.
	b, _ := os.ReadFile(app.dbPath)
	w, _ := os.ReadFile(app.dbPath + "-wal")
	p, _ := os.ReadFile(v.Path)
	for _, data := range [][]byte{b, w, p} {
		if bytes.Contains(data, []byte("sk-local-file-secret")) || bytes.Contains(data, []byte("sk-test-secret")) {
			t.Fatal("a key reached the database or providers.json")
		}
	}
}

// chats counts the chat requests s received (Test connection's model list is not one).
func chats(s *fakeai.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == "POST" {
			n++
		}
	}
	return n
}

// A change made while a run works applies to the next run, also when the runner starts that
// run itself for a message queued meanwhile.
func TestModelChangedDuringARunAppliesToTheQueuedNextRun(t *testing.T) {
	def := startFake(t)
	local := startFake(t)
	app := newTestApp(t, def.URL())
	if _, err := app.SaveProviders([]config.Provider{{Name: "local", Kind: config.KindOpenAI, BaseURL: local.URL(),
		Models: []string{"m-local"}}}); err != nil {
		t.Fatal(err)
	}
	s, err := app.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	def.Enqueue(fakeai.Text("a slow answer that takes a while").WithDelay(60 * time.Millisecond))
	first, err := app.SendMessage(s.ID, "first")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "text_delta", func(ev map[string]any) bool { return ev["type"] == "text_delta" && ev["run_id"] == first })
	if _, err := app.SetSessionModel(s.ID, "local", "m-local"); err != nil {
		t.Fatal(err)
	}
	local.Enqueue(fakeai.Text("from local"))
	if id, err := app.SendMessage(s.ID, "queued while running"); err != nil || id != first {
		t.Fatalf("the message was not queued on the running run: %q %v", id, err)
	}
	app.rec.runFinished(t, first)
	next := app.rec.waitFor(t, "the next run's run_finished", func(ev map[string]any) bool {
		return ev["type"] == "run_finished" && ev["run_id"] != first
	})
	if next["status"] != "completed" || chats(local) != 1 || chats(def) != 1 {
		t.Fatalf("next run %v; chat requests: default %d, local %d", next["status"], chats(def), chats(local))
	}
	runs, err := app.Runs(s.ID)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	byID := map[string]string{}
	for _, r := range runs {
		byID[r.ID] = r.Provider + "/" + r.Model
	}
	if byID[first] != "default/fake-model" || byID[next["run_id"].(string)] != "local/m-local" {
		t.Fatalf("run rows: %v", byID)
	}
}

// The provider for new sessions is saved with Settings (a name providers.json does not
// have is refused); a broken providers.json is reported in Settings and refuses runs on the
// file's providers with the file and entry named, while "default" is still listed.
func TestSavedProviderAndABrokenProvidersFile(t *testing.T) {
	def := startFake(t)
	local := startFake(t)
	app := newTestApp(t, def.URL())
	in := desktop.SettingsInput{Provider: "local", BaseURL: def.URL(), Model: "m-local"}
	if _, err := app.SaveSettings(in); !errors.Is(err, desktop.ErrInvalidInput) || !strings.Contains(err.Error(), `no provider "local"`) {
		t.Fatalf("an unknown saved provider: %v", err)
	}
	v, err := app.SaveProviders([]config.Provider{{Name: "local", Kind: config.KindOpenAI, BaseURL: local.URL(), Models: []string{"m-local"}}})
	if err != nil {
		t.Fatal(err)
	}
	set, err := app.SaveSettings(in)
	if err != nil || set.Provider != "local" || !set.Configured {
		t.Fatalf("saved: %+v %v", set, err)
	}
	s, err := app.NewSession("")
	if err != nil || s.Provider != "local" || s.Model != "m-local" {
		t.Fatalf("a new session gets the saved provider: %+v %v", s, err)
	}

	if err := os.WriteFile(v.Path, []byte(`{"providers": [{"name": "local", "kind": "openai", "base_url": "nope"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	v = app.ListProviders()
	if !strings.Contains(v.Error, `provider "local": base_url "nope"`) || len(v.Infos) != 1 || v.Infos[0].Name != "default" {
		t.Fatalf("broken file: %+v", v)
	}
	if _, err := app.SendMessage(s.ID, "hi"); err == nil || !strings.Contains(err.Error(), "providers file "+v.Path) {
		t.Fatalf("a run on a broken file: %v", err)
	}
	if chats(local) != 0 {
		t.Fatal("a request was sent")
	}
}

// Test connection of an anthropic provider asks GET /v1/models with the key in x-api-key and
// lists the models; a refusal is reported with the server's message and never the key.
func TestTestProviderAnthropicListsModels(t *testing.T) {
	const key = "sk-ant-test-key-93f1"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("anthropic-version") == "" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("x-api-key") != key {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`, r.Header.Get("x-api-key"))
			return
		}
		fmt.Fprint(w, `{"data":[{"type":"model","id":"claude-sonnet-4-5"},{"type":"model","id":"claude-opus-4-1"}],"has_more":false}`)
	}))
	defer srv.Close()
	app := newTestApp(t, "")
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.key"), filepath.Join(dir, "bad.key")
	for path, k := range map[string]string{good: key, bad: "sk-ant-wrong-5521"} {
		if err := os.WriteFile(path, []byte(k+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := config.Provider{Name: "claude", Kind: config.KindAnthropic, BaseURL: srv.URL, APIKeyFile: good}
	if r := app.TestProvider(p); !r.OK || strings.Join(r.Models, ",") != "claude-sonnet-4-5,claude-opus-4-1" {
		t.Fatalf("good key: %+v", r)
	}
	p.APIKeyFile = bad
	r := app.TestProvider(p)
	if r.OK || !strings.Contains(r.Error, "401") || !strings.Contains(r.Error, "invalid x-api-key") || strings.Contains(r.Error, "sk-ant-wrong-5521") {
		t.Fatalf("bad key: %+v", r)
	}
	p.BaseURL = srv.URL + "/v1"
	if r := app.TestProvider(p); r.OK || !strings.Contains(r.Error, "without /v1") {
		t.Fatalf("a /v1 base URL: %+v", r)
	}
}
