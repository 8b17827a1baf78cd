package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/store"
)

type sessResult struct {
	code           int
	stdout, stderr string
}

func sessRun(t *testing.T, args ...string) sessResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Sessions(context.Background(), args, &out, &errb)
	return sessResult{code, out.String(), errb.String()}
}

// sessFixture makes a database with one session holding a tool turn.
func sessFixture(t *testing.T) (path string, id string) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.CreateSession(ctx, store.NewSession{Title: "fix the flaky test", Workspace: "/src/app", Model: "qwen"})
	if err != nil {
		t.Fatal(err)
	}
	steps := [][]store.NewChunk{
		{{Kind: store.KindUser, Payload: store.UserPayload{Text: "why is TestRetry flaky?"}}},
		{{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "Let me look.", Reasoning: "grep first",
			ToolCalls: []store.ToolCall{{ID: "call_1", Name: "search_text", Arguments: `{"pattern":"TestRetry"}`}}}}},
		{{Kind: store.KindApproval, Payload: store.ApprovalPayload{CallID: "call_1", Tool: "search_text", Decision: "approved", By: "person"}}},
		{{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "call_1", Name: "search_text", Content: "retry_test.go:9: time.Sleep(10 * time.Millisecond) \x1b[31mred\x1b[0m"}}},
		{{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "It sleeps instead of polling."}}},
	}
	for _, st := range steps {
		if _, err := db.Append(ctx, s.ID, "run1", st...); err != nil {
			t.Fatal(err)
		}
	}
	return path, s.ID
}

func sessLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestSessionsShowJSON(t *testing.T) {
	path, id := sessFixture(t)
	r := sessRun(t, "show", id, "--db", path, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := sessLines(t, r.stdout)
	if len(lines) != 5 {
		t.Fatalf("want 5 rows, got %d:\n%s", len(lines), r.stdout)
	}
	for i, l := range lines {
		if len(l) != 5 || l["seq"] != float64(i+1) || l["run_id"] != "run1" || l["created_at"] == nil || l["kind"] == nil || l["payload"] == nil {
			t.Errorf("line %d: %v", i+1, l)
		}
	}
	a := lines[1]["payload"].(map[string]any)
	tc := a["tool_calls"].([]any)[0].(map[string]any)
	if a["text"] != "Let me look." || a["reasoning"] != "grep first" || tc["id"] != "call_1" || tc["name"] != "search_text" || tc["arguments"] != `{"pattern":"TestRetry"}` {
		t.Errorf("assistant payload: %v", a)
	}
	tr := lines[3]["payload"].(map[string]any)
	if tr["call_id"] != "call_1" || tr["name"] != "search_text" || tr["is_error"] != false || !strings.HasPrefix(tr["content"].(string), "retry_test.go") {
		t.Errorf("tool_result payload: %v", tr)
	}
	// The payload is printed exactly as stored.
	db, _ := store.Open(context.Background(), path)
	defer db.Close()
	rows, _ := db.Chunks(context.Background(), id)
	var line struct {
		Payload json.RawMessage `json:"payload"`
	}
	json.Unmarshal([]byte(strings.Split(r.stdout, "\n")[1]), &line)
	if !bytes.Equal(line.Payload, rows[1].Payload) {
		t.Errorf("payload not as stored:\n%s\n%s", line.Payload, rows[1].Payload)
	}
}

func TestSessionsShowHuman(t *testing.T) {
	path, id := sessFixture(t)
	r := sessRun(t, "show", "--db", path, id)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"fix the flaky test", "/src/app", "search_text", "approved by person", "It sleeps instead of polling."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "\x1b") {
		t.Error("terminal escape sequences from tool output reach the terminal")
	}
}

func TestSessionsListForkSearchDelete(t *testing.T) {
	path, id := sessFixture(t)
	r := sessRun(t, "fork", id, "--at", "2", "--db", path, "--json")
	if r.code != 0 {
		t.Fatalf("fork: exit %d: %s", r.code, r.stderr)
	}
	var fork struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fork); err != nil || fork.SessionID == "" || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("fork --json: %q %v", r.stdout, err)
	}
	r = sessRun(t, "list", "--db", path, "--json")
	lines := sessLines(t, r.stdout)
	// Which comes first depends on the milliseconds the two handles stamped (each handle keeps
	// its own stamps increasing): find the fork by its id.
	var forked map[string]any
	for _, l := range lines {
		if l["id"] == fork.SessionID {
			forked = l
		}
	}
	if r.code != 0 || len(lines) != 2 || forked == nil || forked["parent_id"] != id || forked["fork_seq"] != float64(2) {
		t.Fatalf("list after fork: %d %s", r.code, r.stdout)
	}
	r = sessRun(t, "list", "--db", path)
	if r.code != 0 || !strings.Contains(r.stdout, "fork of "+id+" at 2") {
		t.Fatalf("human list: %s", r.stdout)
	}

	r = sessRun(t, "search", "--db", path, "--json", "flaky")
	hits := sessLines(t, r.stdout)
	if r.code != 0 || len(hits) != 2 { // the user row, in the parent and in the fork
		t.Fatalf("search: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if hits[0]["seq"] != float64(1) || !strings.Contains(hits[0]["snippet"].(string), store.MarkStart+"flaky"+store.MarkEnd) {
		t.Errorf("hit: %v", hits[0])
	}
	r = sessRun(t, "search", "--db", path, "time.Sleep")
	if r.code != 1 || !strings.Contains(r.stderr, `"time.Sleep"`) {
		t.Errorf("FTS syntax error should hint at quoting: %d %q", r.code, r.stderr)
	}
	r = sessRun(t, "search", "--db", path, "--literal", "time.Sleep")
	if r.code != 0 || !strings.Contains(r.stdout, "#4") {
		t.Errorf("literal search: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = sessRun(t, "search", "--db", path, "--literal", "time.Sleep", "polling")
	if r.code != 0 || !strings.Contains(r.stdout, "no rows match") {
		// Both words must be in one row: none has both.
		t.Errorf("search with no hits: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = sessRun(t, "search", "--db", path, "polling")
	if r.code != 0 || !strings.Contains(r.stdout, "«polling»") || !strings.Contains(r.stdout, "#5") {
		t.Errorf("human search: %q", r.stdout)
	}

	r = sessRun(t, "delete", id, "--db", path)
	if r.code != 0 {
		t.Fatalf("delete: %d %s", r.code, r.stderr)
	}
	// Forked after a tool call: rows 1..2 plus the synthesized result.
	r = sessRun(t, "show", fork.SessionID, "--db", path, "--json")
	if r.code != 0 || len(sessLines(t, r.stdout)) != 3 {
		t.Fatalf("fork after deleting its parent: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

func TestSessionsExportImport(t *testing.T) {
	path, id := sessFixture(t)
	file := filepath.Join(t.TempDir(), "s.jsonl")
	r := sessRun(t, "export", id, "--db", path, "-o", file)
	if r.code != 0 {
		t.Fatalf("export: %d %s", r.code, r.stderr)
	}
	stdout := sessRun(t, "export", id, "--db", path)
	b, _ := os.ReadFile(file)
	if stdout.code != 0 || stdout.stdout != string(b) || len(b) == 0 {
		t.Fatalf("export to stdout and to a file differ")
	}
	other := filepath.Join(t.TempDir(), "other.db")
	r = sessRun(t, "import", file, "--db", other, "--json")
	var imp struct {
		SessionID string `json:"session_id"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &imp) != nil || imp.SessionID == "" {
		t.Fatalf("import: %d %q %s", r.code, r.stdout, r.stderr)
	}
	a := sessRun(t, "show", id, "--db", path, "--json")
	c := sessRun(t, "show", imp.SessionID, "--db", other, "--json")
	if a.stdout != c.stdout {
		t.Fatalf("imported rows differ:\n%s\n%s", a.stdout, c.stdout)
	}
}

func TestSessionsErrors(t *testing.T) {
	path, id := sessFixture(t)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"type\":\"session\",\"format\":1,\"session\":{}}\nnot json\n"), 0o600)
	notDB := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notDB, bytes.Repeat([]byte("plain text, not sqlite\n"), 100), 0o600)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "usage"},
		{[]string{"frobnicate", "--db", path}, 2, `unknown command "frobnicate"`},
		{[]string{"show", "--db", path}, 2, "exactly one session ID"},
		{[]string{"fork", id, "--db", path}, 2, "--at"},
		{[]string{"fork", id, "--at", "x", "--db", path}, 2, "--at"},
		{[]string{"list", "--bogus", "--db", path}, 2, "bogus"},
		{[]string{"search", "--db", path}, 2, "QUERY"},
		{[]string{"show", "nope", "--db", path}, 1, `session "nope": not found`},
		{[]string{"fork", id, "--at", "99", "--db", path}, 1, "seq out of range"},
		{[]string{"search", `"open`, "--db", path}, 1, "bad search query"},
		{[]string{"import", bad, "--db", path}, 1, "line 2"},
		{[]string{"import", filepath.Join(t.TempDir(), "missing.jsonl"), "--db", path}, 1, "no such file"},
		{[]string{"list", "--db", notDB}, 1, "not a Loopdesk database"},
		{[]string{"delete", "nope", "--db", path}, 1, "not found"},
	}
	for _, c := range cases {
		r := sessRun(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%q: want exit %d with %q, got %d: %s", c.args, c.code, c.msg, r.code, r.stderr)
		}
		if r.code == 1 && strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: error should be one clear line, got %q", c.args, r.stderr)
		}
	}
	// Nothing was written by the failures.
	r := sessRun(t, "list", "--db", path, "--json")
	if len(sessLines(t, r.stdout)) != 1 {
		t.Fatalf("failed commands changed the database: %s", r.stdout)
	}
}

func TestSessionsDefaultPathFromEnv(t *testing.T) {
	path, id := sessFixture(t)
	t.Setenv("LOOPDESK_DB", path)
	r := sessRun(t, "list", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Fatalf("list via LOOPDESK_DB: %d %s %s", r.code, r.stdout, r.stderr)
	}
	xdg := t.TempDir()
	t.Setenv("LOOPDESK_DB", "")
	t.Setenv("XDG_DATA_HOME", xdg)
	if r := sessRun(t, "list"); r.code != 0 {
		t.Fatalf("list with a fresh default database: %d %s", r.code, r.stderr)
	}
	fi, err := os.Stat(filepath.Join(xdg, "loopdesk"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("default folder: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(xdg, "loopdesk", "loopdesk.db")); err != nil {
		t.Fatal(err)
	}
}

func TestSessionsExportMarkdown(t *testing.T) {
	path, id := sessFixture(t)
	file := filepath.Join(t.TempDir(), "s.md")
	r := sessRun(t, "export", "--format", "markdown", id, "--db", path, "-o", file)
	if r.code != 0 {
		t.Fatalf("export: %d %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(file)
	md := string(b)
	for _, want := range []string{"# fix the flaky test", "## You (#1)\n\nwhy is TestRetry flaky?", "### Tool call `search_text`",
		"**Approved** `search_text` (by person)", "time.Sleep(10 * time.Millisecond) [31mred[0m", "It sleeps instead of polling."} {
		if !strings.Contains(md, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, md)
		}
	}
	if strings.ContainsRune(md, '\x1b') {
		t.Error("a terminal escape reached the transcript")
	}
	if out := sessRun(t, "export", "--format", "markdown", id, "--db", path); out.code != 0 || out.stdout != md {
		t.Fatalf("to stdout: %d, differs from the file", out.code)
	}
	if bad := sessRun(t, "export", "--format", "html", id, "--db", path); bad.code != 2 || !strings.Contains(bad.stderr, "want jsonl or markdown") {
		t.Fatalf("--format html: %d %s", bad.code, bad.stderr)
	}
}
