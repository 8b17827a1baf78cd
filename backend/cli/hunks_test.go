package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func hunkLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return out
}

func (e *runEnv) sessions(args ...string) runOut {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Sessions(context.Background(), append(args, "--db", e.db), &out, &errb)
	return runOut{code, out.String(), errb.String()}
}

func (e *runEnv) onlySession() string {
	e.t.Helper()
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	ss, err := db.ListSessions(context.Background())
	if err != nil || len(ss) != 1 {
		e.t.Fatalf("sessions: %v %v", ss, err)
	}
	return ss[0].ID
}

// The agent rewrites three lines of a file; the person reverts one hunk
// with the CLI, a conflicting revert is refused, the next request carries
// the framed note, and the person's own edit shows as "outside".
func TestSessionsHunksRevertAndNote(t *testing.T) {
	e := runNewEnv(t)
	before := hunkLines(30)
	os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte(strings.Join(before, "")), 0o644)
	after := hunkLines(30)
	after[2], after[14], after[26] = "THREE\n", "FIFTEEN\n", "TWENTY-SEVEN\n"
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "content": strings.Join(after, "")})
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w1", Name: "write_file", Arguments: string(args)}), fakeai.Text("done"))
	if r := e.run(context.Background(), "", "--approve", "auto", "edit a.txt"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	id := e.onlySession()

	r := e.sessions("changes", id, "--hunks", "--json")
	lines := runLines(t, r.stdout)
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("hunks: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	seq := int64(lines[0]["seq"].(float64))
	for i, l := range lines {
		if len(l) != 9 || l["path"] != "a.txt" || l["hunk"] != float64(i+1) || l["state"] != "unreviewed" ||
			!strings.HasPrefix(l["patch"].(string), "@@ -") {
			t.Errorf("hunk line %d: %v", i, l)
		}
	}
	if lines[1]["old_start"] != float64(12) || lines[1]["old_lines"] != float64(7) || lines[1]["new_start"] != float64(12) || lines[1]["new_lines"] != float64(7) {
		t.Errorf("hunk 2 range: %v", lines[1])
	}

	r = e.sessions("revert", id, "--seq", fmt.Sprint(seq), "--path", "a.txt", "--hunk", "2", "--json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != fmt.Sprintf(`{"reverted":{"seq":%d,"path":"a.txt","hunk":2}}`, seq) {
		t.Fatalf("revert: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	want := append([]string{}, after...)
	want[14] = "line 15\n"
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(got) != strings.Join(want, "") {
		t.Fatalf("a.txt after revert:\n%s", got)
	}

	// The person edits line 27 (inside hunk 3): reverting hunk 3 is refused.
	want[26] = "the person's 27\n"
	os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte(strings.Join(want, "")), 0o644)
	r = e.sessions("revert", id, "--seq", fmt.Sprint(seq), "--path", "a.txt", "--hunk", "3")
	if r.code != 1 || !strings.Contains(r.stderr, "a.txt line(s) 27") {
		t.Fatalf("conflicting revert: exit %d %s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(got) != strings.Join(want, "") {
		t.Fatal("a refused revert changed the file")
	}
	if r := e.sessions("revert", id, "--seq", "x", "--path", "a.txt", "--hunk", "1"); r.code != 2 {
		t.Fatalf("bad --seq: exit %d", r.code)
	}

	// The next run: its first request carries the framed note; its call
	// finds the person's edit and records it as outside.
	e.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "w2", Name: "write_file", Arguments: `{"path":"b.txt","content":"b\n"}`}), fakeai.Text("ok"))
	if r := e.run(context.Background(), "", "--approve", "auto", "--session", id, "go on"); r.code != 0 {
		t.Fatalf("second run: exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	body := string(reqs[len(reqs)-2].Body)
	if !strings.Contains(body, "loopdesk note") || !strings.Contains(body, "reverted hunk 2 of the change row") ||
		!strings.Contains(body, "a.txt: lines 12-18") {
		t.Fatalf("the next request lacks the note:\n%s", body)
	}
	r = e.sessions("changes", id, "--json")
	var by []string
	for _, l := range runLines(t, r.stdout) {
		by = append(by, fmt.Sprintf("%s:%s", l["path"], l["by"]))
	}
	if got := strings.Join(by, " "); got != "a.txt:agent a.txt:person a.txt:outside b.txt:agent" {
		t.Fatalf("changes by: %s", got)
	}
}
