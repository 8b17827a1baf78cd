package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/loopdesk/loopdesk/backend/config"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// providersEnv is `loopdesk run` with two providers: "default" (OPENAI_BASE_URL, the key in
// OPENAI_API_KEY) and "local" from providers.json (its key in LOCAL_KEY), each its own fake
// server that refuses any other key.
type providersEnv struct {
	t          *testing.T
	def, local *fakeai.Server
	db, ws     string
	cfgDir     string
}

const (
	defaultKey = "sk-default-secret"
	localKey   = "sk-local-secret"
)

func newProvidersEnv(t *testing.T) *providersEnv {
	t.Helper()
	def, err := fakeai.Start(fakeai.WithAPIKey(defaultKey))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(def.Close)
	local, err := fakeai.Start(fakeai.WithAPIKey(localKey))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(local.Close)
	dir := t.TempDir()
	e := &providersEnv{t: t, def: def, local: local, db: filepath.Join(dir, "loopdesk.db"), ws: filepath.Join(dir, "ws"),
		cfgDir: filepath.Join(dir, "config")}
	if err := os.MkdirAll(filepath.Join(e.cfgDir, "loopdesk"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", e.cfgDir)
	t.Setenv("OPENAI_API_KEY", defaultKey)
	t.Setenv("OPENAI_BASE_URL", def.URL())
	t.Setenv("LOOPDESK_MODEL", "m-default")
	t.Setenv("LOOPDESK_DB", "")
	t.Setenv("LOCAL_KEY", localKey)
	e.writeProviders(`{"providers": [{"name": "local", "kind": "openai", "base_url": "` + local.URL() +
		`", "api_key_env": "LOCAL_KEY", "models": ["m-local", "m-local-2"]}]}`)
	return e
}

func (e *providersEnv) writeProviders(body string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.cfgDir, "loopdesk", "providers.json"), []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *providersEnv) run(args ...string) runOut {
	e.t.Helper()
	full := append([]string{"--db", e.db, "--workspace", e.ws, "--approve", "auto"}, args...)
	var out, errb notifyBuffer
	code := Run(context.Background(), full, strings.NewReader(""), &out, &errb)
	return runOut{code, out.String(), errb.String()}
}

func (e *providersEnv) mustRun(args ...string) {
	e.t.Helper()
	if r := e.run(args...); r.code != 0 {
		e.t.Fatalf("run %v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
	}
}

// lastModel is the model named by the last request server s received.
func lastModel(t *testing.T, s *fakeai.Server) string {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("the server got no request")
	}
	var body struct{ Model string }
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Model
}

func (e *providersEnv) open() *store.DB {
	e.t.Helper()
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

// A session keeps its own provider and model whatever the default says; --model on a
// continued session changes it from that run on; every run row records what it used.
func TestRunSessionKeepsItsOwnProviderAndModel(t *testing.T) {
	e := newProvidersEnv(t)
	e.local.Enqueue(fakeai.Text("one"))
	e.mustRun("--provider", "local", "first on local")
	if got := lastModel(t, e.local); got != "m-local" {
		t.Fatalf("first run asked for %q, want the provider's first model m-local", got)
	}
	db := e.open()
	ctx := context.Background()
	sessions, err := db.ListSessions(ctx)
	if err != nil || len(sessions) != 1 || sessions[0].Provider != "local" || sessions[0].Model != "m-local" {
		t.Fatalf("sessions: %+v %v", sessions, err)
	}
	sid := sessions[0].ID

	// Another session on the default provider does not move the first one.
	e.def.Enqueue(fakeai.Text("two"))
	e.mustRun("on the default")
	if got := lastModel(t, e.def); got != "m-default" {
		t.Fatalf("a new session used %q, want the default m-default", got)
	}
	e.local.Enqueue(fakeai.Text("three"))
	e.mustRun("--session", sid, "again")
	if n := len(e.local.Requests()); n != 2 || lastModel(t, e.local) != "m-local" {
		t.Fatalf("the continued session went elsewhere: local got %d requests, last model %q", n, lastModel(t, e.local))
	}

	// A change applies from the next run, and stays.
	e.local.Enqueue(fakeai.Text("four"), fakeai.Text("five"))
	e.mustRun("--session", sid, "--model", "m-local-2", "switch")
	e.mustRun("--session", sid, "after the switch")
	if got := lastModel(t, e.local); got != "m-local-2" {
		t.Fatalf("after --model, the next run used %q", got)
	}
	e.def.Enqueue(fakeai.Text("six"))
	e.mustRun("--session", sid, "--provider", "default", "to the default")
	if got := lastModel(t, e.def); got != "m-default" {
		t.Fatalf("--provider default used model %q", got)
	}
	s, err := db.GetSession(ctx, sid)
	if err != nil || s.Provider != "default" || s.Model != "m-default" {
		t.Fatalf("session after the switch: %+v %v", s, err)
	}
	runs, err := db.ListRuns(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Provider+"/"+r.Model)
	}
	want := "local/m-local local/m-local local/m-local-2 local/m-local-2 default/m-default"
	if strings.Join(got, " ") != want {
		t.Fatalf("run rows: %s\nwant       %s", strings.Join(got, " "), want)
	}
	db.Close()
	var out, errb bytes.Buffer
	if code := Sessions(context.Background(), []string{"show", "--db", e.db, sid}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "provider default  model m-default") {
		t.Fatalf("sessions show (exit %d):\n%s%s", code, out.String(), errb.String())
	}
	assertNoKeyInFiles(t, filepath.Dir(e.db), defaultKey, localKey)
}

// assertNoKeyInFiles reads every file under dir (the database, its WAL, the config) and
// fails if any holds one of keys.
func assertNoKeyInFiles(t *testing.T, dir string, keys ...string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, k := range keys {
			if bytes.Contains(b, []byte(k)) {
				t.Errorf("%s holds the key %q", path, k)
			}
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walk %s: %d files, %v", dir, n, err)
	}
}

func TestRunRefusesABadProvidersFileOrNameBeforeWritingAnything(t *testing.T) {
	e := newProvidersEnv(t)
	e.writeProviders(`{"providers": [{"name": "broken", "kind": "openai", "base_url": "nope"}]}`)
	r := e.run("hello")
	path := filepath.Join(e.cfgDir, "loopdesk", "providers.json")
	if r.code != runExitOther || !strings.Contains(r.stderr, "providers file "+path) || !strings.Contains(r.stderr, `provider "broken": base_url "nope"`) {
		t.Fatalf("exit %d, stderr %q; want 1 naming the file and the entry", r.code, r.stderr)
	}
	if _, err := os.Stat(e.db); !os.IsNotExist(err) {
		t.Fatalf("the database was created: %v", err)
	}

	e.writeProviders(`{"providers": []}`)
	r = e.run("--provider", "nobody", "hello")
	if r.code != runExitOther || !strings.Contains(r.stderr, `unknown provider "nobody" (configured: default)`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.run("--thinking-budget", "-5", "hello"); r.code != runExitUsage || !strings.Contains(r.stderr, "--thinking-budget") {
		t.Fatalf("a negative budget: exit %d, %q", r.code, r.stderr)
	}
	db := e.open()
	if ss, _ := db.ListSessions(context.Background()); len(ss) != 0 {
		t.Fatalf("a refused run left sessions: %+v", ss)
	}
}

// `loopdesk settings --json` lists every provider with where its key comes from, never a key.
func TestSettingsJSONListsProvidersWithoutKeys(t *testing.T) {
	e := newProvidersEnv(t)
	keyFile := filepath.Join(e.cfgDir, "claude.key")
	if err := os.WriteFile(keyFile, []byte("sk-ant-file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.writeProviders(`{"providers": [
	  {"name": "local", "kind": "openai", "base_url": "` + e.local.URL() + `", "api_key_env": "LOCAL_KEY", "models": ["m-local"]},
	  {"name": "claude", "kind": "anthropic", "base_url": "https://api.anthropic.com", "api_key_file": "` + keyFile +
		`", "models": ["claude-sonnet-4-5"], "thinking_budget": 2048}]}`)
	var out, errb bytes.Buffer
	if code := SettingsCommand(context.Background(), []string{"--json", "--db", e.db}, os.Getenv, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, k := range []string{defaultKey, localKey, "sk-ant-file-secret"} {
		if strings.Contains(out.String(), k) {
			t.Fatalf("settings printed a key:\n%s", out.String())
		}
	}
	var row struct {
		Setting string
		Source  string
		Detail  string
		Value   []struct {
			Name           string   `json:"name"`
			Kind           string   `json:"kind"`
			BaseURL        string   `json:"base_url"`
			Models         []string `json:"models"`
			ThinkingBudget int      `json:"thinking_budget"`
			Key            struct {
				From, Name string
				Found      bool
			} `json:"key"`
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &row); err != nil || row.Setting != "providers" {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	if row.Source != "saved" || row.Detail != filepath.Join(e.cfgDir, "loopdesk", "providers.json") || len(row.Value) != 3 {
		t.Fatalf("providers row: %+v", row)
	}
	d, l, c := row.Value[0], row.Value[1], row.Value[2]
	if d.Name != "default" || d.Kind != "openai" || d.BaseURL != e.def.URL() || strings.Join(d.Models, ",") != "m-default" ||
		d.Key.From != "env" || d.Key.Name != "OPENAI_API_KEY" || !d.Key.Found {
		t.Errorf("default: %+v", d)
	}
	if l.Name != "local" || l.Key.From != "env" || l.Key.Name != "LOCAL_KEY" || !l.Key.Found {
		t.Errorf("local: %+v", l)
	}
	if c.Name != "claude" || c.Kind != "anthropic" || c.ThinkingBudget != 2048 || c.Key.From != "file" || c.Key.Name != keyFile || !c.Key.Found {
		t.Errorf("claude: %+v", c)
	}
	// The table names the key's source too, never the key.
	out.Reset()
	if code := SettingsCommand(context.Background(), []string{"--db", e.db}, os.Getenv, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "claude (anthropic https://api.anthropic.com, models claude-sonnet-4-5, key file "+keyFile+")") ||
		strings.Contains(out.String(), "sk-ant-file-secret") {
		t.Fatalf("table (exit %d):\n%s", code, out.String())
	}
}

// --thinking-budget is for one run; without it the provider's thinking_budget applies.
func TestThinkingBudgetFlagOverProvider(t *testing.T) {
	e := newProvidersEnv(t)
	e.writeProviders(`{"providers": [{"name": "c", "kind": "anthropic", "base_url": "https://api.anthropic.com", "thinking_budget": 4096}]}`)
	cfg, srcs, err := resolve(context.Background(), e.db, os.Getenv, config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := loadProviders(cfg, srcs, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	zero, big := 0, 8192
	for _, c := range []struct {
		provider string
		flag     *int
		want     int
	}{{"c", nil, 4096}, {"c", &zero, 0}, {"c", &big, 8192}, {"default", nil, 0}, {"default", &big, 8192}} {
		if got, _, err := thinkingBudget(ps, c.provider, c.flag); err != nil || got != c.want {
			t.Errorf("provider %s, flag %v: %d %v; want %d", c.provider, c.flag, got, err, c.want)
		}
	}
}
