package desktop_test

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
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// recorder collects what the app emits to the page, as the page sees it (JSON).
type recorder struct {
	mu     sync.Mutex
	events []map[string]any
	signal chan struct{}
	// onEmit, when set before the run, sees each event as the page receives it, before the
	// next one is emitted (what a page handler does at that moment).
	onEmit func(map[string]any)
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1)} }

func (r *recorder) emit(name string, data any) {
	each := []any{data}
	if batch, ok := data.(desktop.EventBatch); ok { // the page's listener gets each in order
		each = batch
	}
	evs := make([]map[string]any, 0, len(each))
	for _, data := range each {
		b, err := json.Marshal(data)
		if err != nil {
			panic(err)
		}
		var ev map[string]any
		if err := json.Unmarshal(b, &ev); err != nil {
			panic(err)
		}
		ev["_event"] = name
		if r.onEmit != nil {
			r.onEmit(ev)
		}
		evs = append(evs, ev)
	}
	r.mu.Lock()
	r.events = append(r.events, evs...)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// waitFor polls the recorded events until one matches, and returns it.
func (r *recorder) waitFor(t *testing.T, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(20 * time.Second)
	seen := 0
	for {
		r.mu.Lock()
		evs := r.events[seen:]
		seen = len(r.events)
		r.mu.Unlock()
		for _, ev := range evs {
			if match(ev) {
				return ev
			}
		}
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("no %s event", what)
		}
	}
}

func (r *recorder) runFinished(t *testing.T, runID string) map[string]any {
	t.Helper()
	return r.waitFor(t, "run_finished", func(ev map[string]any) bool {
		return ev["type"] == "run_finished" && ev["run_id"] == runID
	})
}

func (r *recorder) deltas(runID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		if ev["type"] == "text_delta" && ev["run_id"] == runID {
			out = append(out, ev["text"].(string))
		}
	}
	return out
}

type fakeDialogs struct{ folder, save, open string }

func (d *fakeDialogs) ChooseFolder(string) (string, error)     { return d.folder, nil }
func (d *fakeDialogs) SaveFile(string, string) (string, error) { return d.save, nil }
func (d *fakeDialogs) OpenFile(string) (string, error)         { return d.open, nil }

// testApp is the bound services the tests drive (all but Window) as one value, the way the
// page sees them.
type testApp struct {
	*desktop.Sessions
	*desktop.Chat
	*desktop.Settings
	*desktop.Workspace
	svc     *desktop.Services
	db      *store.DB
	rec     *recorder
	dbPath  string
	dialogs *fakeDialogs
}

func newTestApp(t *testing.T, baseURL string) *testApp {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("LOOPDESK_MODEL", "")
	app := openTestApp(t, filepath.Join(dir, "loopdesk.db"), filepath.Join(dir, "config"))
	if baseURL != "" {
		if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: baseURL, Model: "fake-model", APIKey: "sk-test-secret"}); err != nil {
			t.Fatal(err)
		}
	}
	return app
}

// openTestApp is the services of a window on the database at dbPath (a new one, or one
// another window has open too), with its configuration in configDir.
func openTestApp(t *testing.T, dbPath, configDir string) *testApp {
	t.Helper()
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	dialogs := &fakeDialogs{}
	svc, err := desktop.New(db, config.Keys{Dir: configDir, Getenv: func(string) string { return "" }}, dialogs,
		filepath.Join(configDir, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	svc.Startup(context.Background(), rec.emit)
	t.Cleanup(func() {
		svc.Shutdown()
		db.Close()
	})
	return &testApp{svc: svc, Sessions: svc.Sessions, Chat: svc.Chat, Settings: svc.Settings, Workspace: svc.Workspace,
		db: db, rec: rec, dbPath: dbPath, dialogs: dialogs}
}

func startFake(t *testing.T, opts ...fakeai.Option) *fakeai.Server {
	t.Helper()
	srv, err := fakeai.Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func payload[T any](t *testing.T, c store.Chunk) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(c.Payload, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSendMessageStreamsAndStoresBothRows(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("Hello from the fake server").WithDelay(15 * time.Millisecond))
	app := newTestApp(t, srv.URL())

	s, err := app.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	runID, err := app.SendMessage(s.ID, "  hi there  ")
	if err != nil {
		t.Fatal(err)
	}
	end := app.rec.runFinished(t, runID)
	if end["status"] != "completed" {
		t.Fatalf("run ended %v: %v", end["status"], end["error"])
	}
	if d := app.rec.deltas(runID); len(d) < 3 || strings.Join(d, "") != "Hello from the fake server" {
		t.Fatalf("text deltas = %q; want the reply in several pieces", d)
	}

	view, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Rows) != 2 || view.Rows[0].Kind != store.KindUser || view.Rows[1].Kind != store.KindAssistant {
		t.Fatalf("rows = %+v; want user then assistant", view.Rows)
	}
	if a := payload[store.AssistantPayload](t, view.Rows[1].Chunk); a.Text != "Hello from the fake server" {
		t.Fatalf("assistant text = %q", a.Text)
	}
	if view.Rows[1].Tokens <= 0 || len(view.Runs) != 1 || view.Runs[0].Status != "completed" {
		t.Fatalf("tokens %d, runs %+v", view.Rows[1].Tokens, view.Runs)
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
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || !body.Stream || body.Messages[len(body.Messages)-1]["content"] != "hi there" {
		t.Fatalf("request body %s (%v)", reqs[0].Body, err)
	}
	app.svc.Shutdown()
	for _, f := range []string{app.dbPath, app.dbPath + "-wal"} {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "sk-test-secret") {
			t.Fatalf("the API key is in %s", f)
		}
	}
}

func TestProviderErrorsAreClearAndTheSessionStaysUsable(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, err := app.NewSession("")
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
		runID, err := app.SendMessage(s.ID, "try")
		if err != nil {
			t.Fatal(err)
		}
		end := app.rec.runFinished(t, runID)
		if end["status"] != "provider_error" || !strings.Contains(end["error"].(string), c.want) {
			t.Fatalf("run ended %v with %q; want provider_error mentioning %q", end["status"], end["error"], c.want)
		}
		if strings.Contains(end["error"].(string), "sk-test-secret") {
			t.Fatal("the API key leaked into an error")
		}
	}
	runID, err := app.SendMessage(s.ID, "third")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("after errors the session is not usable: %v %v", end["status"], end["error"])
	}
	view, _ := app.OpenSession(s.ID)
	users := 0
	for _, r := range view.Rows {
		if r.Kind == store.KindUser {
			users++
		}
	}
	if users != 3 || view.Rows[len(view.Rows)-1].Kind != store.KindAssistant {
		t.Fatalf("rows %+v; want the three user rows kept and a reply last", view.Rows)
	}
}

func TestTestConnectionReportsTheExactProblem(t *testing.T) {
	srv := startFake(t, fakeai.WithAPIKey("right"))
	app := newTestApp(t, "")

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

func TestSettingsPersistAndAreValidated(t *testing.T) {
	app := newTestApp(t, "")
	s, err := app.GetSettings()
	if err != nil || s.Configured || s.ApprovalMode != "ask" || s.Theme != "system" || s.Budgets.MaxTurns == 0 {
		t.Fatalf("fresh settings = %+v, %v; want unconfigured with defaults", s, err)
	}
	bad := []desktop.SettingsInput{
		{BaseURL: "ftp://x", Model: "m"},
		{BaseURL: "http://x/v1", Model: ""},
		{BaseURL: "http://x/v1", Model: "m", ApprovalMode: "yolo"},
		{BaseURL: "http://x/v1", Model: "m", Budgets: desktop.Budgets{MaxTurns: -1}},
		{BaseURL: "http://x/v1", Model: "m", Prices: []desktop.Price{{Model: "a", Price: core.Price{InputPerMTok: -1}}}},
		{BaseURL: "http://x/v1", Model: "m", ContextWindows: []desktop.ContextWindow{{Model: "a", Tokens: 10}}},
	}
	for _, in := range bad {
		if _, err := app.SaveSettings(in); err == nil {
			t.Errorf("accepted %+v", in)
		}
	}
	if s, _ := app.GetSettings(); s.Configured {
		t.Fatal("a refused save stored something")
	}
	in := desktop.SettingsInput{BaseURL: "http://localhost:11434/v1/", Model: "llama3.2", APIKey: "k", ApprovalMode: "read-only",
		Budgets: desktop.Budgets{MaxTurns: 7, MaxCostUSD: 1.5}, Theme: "dark",
		Prices:         []desktop.Price{{Model: "gpt-x", Price: core.Price{InputPerMTok: 2, OutputPerMTok: 8}}},
		ContextWindows: []desktop.ContextWindow{{Model: "llama3.2", Tokens: 8192}}}
	s, err = app.SaveSettings(in)
	if err != nil || !s.Configured || s.BaseURL != "http://localhost:11434/v1" || !s.HasKey || s.KeySource != "file" ||
		s.ApprovalMode != "read-only" || s.Budgets.MaxTurns != 7 || s.Theme != "dark" || len(s.Prices) != 1 || s.ContextWindow("llama3.2") != 8192 {
		t.Fatalf("saved settings = %+v, %v", s, err)
	}
	ses, _ := app.NewSession("")
	if _, err := app.SendMessage(ses.ID, ""); err == nil {
		t.Fatal("an empty message was accepted")
	}
	if _, err := app.SendMessage("no-such-session", "hi"); err == nil {
		t.Fatal("a message to an unknown session was accepted")
	} else if e := desktop.Classify(err); e.Code != "not_found" {
		t.Fatalf("unknown session error code = %q", e.Code)
	}
	if _, err := app.NewSession("relative/dir"); err == nil {
		t.Fatal("a relative workspace was accepted")
	}
}

var _ = tools.ErrNotPending

func TestApprovalsAreDecidedInGoAndEditedArgumentsAreWhatRuns(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	dir := t.TempDir()
	s, err := app.NewSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		fakeai.ToolCalls(
			fakeai.Call{ID: "w1", Name: "write_file", Arguments: `{"path":"a.txt","content":"from the model"}`},
			fakeai.Call{ID: "s1", Name: "run_shell_command", Arguments: `{"command":"touch pwned"}`},
		),
		fakeai.Text("done"),
	)
	runID, err := app.SendMessage(s.ID, "write a file")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"w1", "s1"} {
		app.rec.waitFor(t, "approval_requested "+id, func(ev map[string]any) bool {
			return ev["type"] == "approval_requested" && ev["call_id"] == id
		})
	}
	if p := app.PendingApprovals(s.ID); len(p) != 2 {
		t.Fatalf("pending = %+v; want both calls waiting", p)
	}
	// Nothing ran before the person answered.
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Fatal("write_file ran before it was approved")
	}
	// The page cannot approve a call that is not waiting, or in another session.
	if err := app.Decide(s.ID, "no-such-call", desktop.DecisionInput{Approved: true}); err == nil {
		t.Fatal("approved a call that is not pending")
	} else if e := desktop.Classify(err); e.Code != "not_pending" {
		t.Fatalf("code = %q", e.Code)
	}
	other, _ := app.NewSession(dir)
	if err := app.Decide(other.ID, "w1", desktop.DecisionInput{Approved: true}); err == nil {
		t.Fatal("approved another session's call")
	}
	if err := app.Decide(s.ID, "w1", desktop.DecisionInput{Approved: true, Arguments: `{"path":"a.txt","content":`}); err == nil {
		t.Fatal("accepted edited arguments that are not JSON")
	}
	if err := app.Decide(s.ID, "w1", desktop.DecisionInput{Approved: true, Arguments: `{"path":"a.txt","content":"edited by the person"}`}); err != nil {
		t.Fatal(err)
	}
	if err := app.Decide(s.ID, "s1", desktop.DecisionInput{Approved: false, Reason: "no shell today"}); err != nil {
		t.Fatal(err)
	}
	if err := app.Decide(s.ID, "s1", desktop.DecisionInput{Approved: true}); err == nil {
		t.Fatal("a second answer to the same call was accepted")
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("run ended %v: %v", end["status"], end["error"])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "edited by the person" {
		t.Fatalf("a.txt = %q, %v; want the edited content", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); !os.IsNotExist(err) {
		t.Fatal("the denied shell command ran")
	}
	// Recorded: who decided, the reason, the edited arguments; the model heard the reason.
	view, _ := app.OpenSession(s.ID)
	var approvals []store.ApprovalPayload
	var denied store.ToolResultPayload
	for _, r := range view.Rows {
		switch r.Kind {
		case store.KindApproval:
			approvals = append(approvals, payload[store.ApprovalPayload](t, r.Chunk))
		case store.KindToolResult:
			if p := payload[store.ToolResultPayload](t, r.Chunk); p.CallID == "s1" {
				denied = p
			}
		}
	}
	if len(approvals) != 2 {
		t.Fatalf("approval rows = %+v", approvals)
	}
	for _, a := range approvals {
		switch a.CallID {
		case "w1":
			if a.Decision != "approved" || a.By != "person" || !strings.Contains(a.Arguments, "edited by the person") {
				t.Errorf("w1 approval = %+v", a)
			}
		case "s1":
			if a.Decision != "denied" || a.Reason != "no shell today" {
				t.Errorf("s1 approval = %+v", a)
			}
		}
	}
	if !denied.IsError || !strings.Contains(denied.Content, "no shell today") {
		t.Fatalf("denied result = %+v; want an error carrying the reason", denied)
	}
	touched, err := app.TouchedFiles(s.ID, 0)
	if err != nil || len(touched) != 1 || touched[0].Path != "a.txt" || !touched[0].Changed {
		t.Fatalf("touched = %+v, %v", touched, err)
	}
}

func TestAlwaysAllowSavesARuleThatDecidesTheNextCall(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	dir := t.TempDir()
	s, _ := app.NewSession(dir)
	call := fakeai.Call{ID: "l1", Name: "list_dir", Arguments: `{"path":"."}`}
	srv.Enqueue(fakeai.ToolCalls(call), fakeai.Text("listed"))
	runID, err := app.SendMessage(s.ID, "list")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "approval_requested", func(ev map[string]any) bool { return ev["type"] == "approval_requested" })
	rule, err := app.SuggestRule(s.ID, "l1")
	if err != nil || rule.Tool != "list_dir" || rule.Pattern != "." || rule.Scope != "session" {
		t.Fatalf("suggested rule = %+v, %v", rule, err)
	}
	rule.Pattern = "*"
	if err := app.Decide(s.ID, "l1", desktop.DecisionInput{Approved: true, Always: &rule}); err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	rules, err := app.ListRules()
	if err != nil || len(rules) != 1 || rules[0].Tool != "list_dir" || rules[0].Effect != "allow" || rules[0].ScopeID != s.ID {
		t.Fatalf("rules = %+v, %v", rules, err)
	}

	call.ID = "l2"
	srv.Enqueue(fakeai.ToolCalls(call), fakeai.Text("listed again"))
	runID, err = app.SendMessage(s.ID, "again")
	if err != nil {
		t.Fatal(err)
	}
	if end := app.rec.runFinished(t, runID); end["status"] != "completed" {
		t.Fatalf("second run: %v", end)
	}
	view, _ := app.OpenSession(s.ID)
	var byRule bool
	for _, r := range view.Rows {
		if r.Kind == store.KindApproval {
			if a := payload[store.ApprovalPayload](t, r.Chunk); a.CallID == "l2" && a.By == "rule:"+rules[0].ID {
				byRule = true
			}
		}
	}
	if !byRule {
		t.Fatalf("the second call was not decided by the saved rule: %+v", view.Rows)
	}
	if err := app.DeleteRule(rules[0].ID); err != nil {
		t.Fatal(err)
	}
	if rules, _ := app.ListRules(); len(rules) != 0 {
		t.Fatalf("rules after delete = %+v", rules)
	}
}

func TestForkSearchExportAndFileViews(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := app.NewSession(dir)
	for _, text := range []string{"first question", "second question"} {
		runID, err := app.SendMessage(s.ID, text)
		if err != nil {
			t.Fatal(err)
		}
		app.rec.runFinished(t, runID)
	}
	// Fork after the first answer (row 2) and continue the fork.
	f, err := app.ForkSession(s.ID, 2)
	if err != nil || f.ParentID != s.ID || f.ForkSeq != 2 {
		t.Fatalf("fork = %+v, %v", f, err)
	}
	runID, err := app.SendMessage(f.ID, "a different second question")
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	fv, _ := app.OpenSession(f.ID)
	pv, _ := app.OpenSession(s.ID)
	if len(fv.Rows) != 4 || len(pv.Rows) != 4 || string(fv.Rows[0].Payload) != string(pv.Rows[0].Payload) {
		t.Fatalf("fork rows %d, parent rows %d", len(fv.Rows), len(pv.Rows))
	}
	if _, err := app.ForkSession(s.ID, 99); err == nil {
		t.Fatal("forked past the end")
	}

	hits, err := app.SearchSessions("different")
	if err != nil || len(hits) == 0 || hits[0].SessionID != f.ID {
		t.Fatalf("search = %+v, %v", hits, err)
	}
	if _, err := app.SearchSessions(`"unbalanced`); err == nil {
		t.Fatal("a malformed query gave no error")
	}

	app.dialogs.save = filepath.Join(t.TempDir(), "export.jsonl")
	path, err := app.ExportSession(s.ID)
	if err != nil || path != app.dialogs.save {
		t.Fatalf("export = %q, %v", path, err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "second question") || strings.Contains(string(b), "sk-test-secret") {
		t.Fatalf("export content:\n%s", b)
	}
	app.dialogs.save = ""
	if path, err := app.ExportSession(s.ID); err != nil || path != "" {
		t.Fatalf("a cancelled export = %q, %v", path, err)
	}

	files, err := app.ListFiles(s.ID)
	if err != nil || len(files) != 1 || files[0].Path != "notes.md" {
		t.Fatalf("files = %+v, %v", files, err)
	}
	if p, err := app.ReadFile(s.ID, "notes.md"); err != nil || p.Content != "# hello\n" {
		t.Fatalf("preview = %+v, %v", p, err)
	}
	for _, bad := range []string{"../secret.txt", outside} {
		if p, err := app.ReadFile(s.ID, bad); err == nil {
			t.Fatalf("read %s outside the workspace: %+v", bad, p)
		}
	}
	// The tree follows the folder live.
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	app.rec.waitFor(t, "workspace:changed", func(ev map[string]any) bool {
		if ev["_event"] != "workspace:changed" {
			return false
		}
		for _, c := range ev["changes"].([]any) {
			if c.(map[string]any)["path"] == "new.txt" {
				return true
			}
		}
		return false
	})
}
