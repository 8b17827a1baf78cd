package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func listIDs(t *testing.T, args ...string) []string {
	t.Helper()
	r := sessRun(t, append([]string{"list", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("list %v: exit %d %s", args, r.code, r.stderr)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var s struct{ ID string }
		if line != "" && json.Unmarshal([]byte(line), &s) == nil {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

func TestSessionsArchiveAndProjects(t *testing.T) {
	path, id := sessFixture(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := db.CreateSession(ctx, store.NewSession{Title: "other"})
	size, err := db.SessionSize(ctx, id)
	db.Close()
	if err != nil || size.Rows == 0 {
		t.Fatalf("size = %+v, %v", size, err)
	}

	r := sessRun(t, "list", "--json", "--db", path)
	if !strings.Contains(r.stdout, fmt.Sprintf(`"bytes":%d`, size.Total)) {
		t.Fatalf("list --json lacks the session's bytes (%d): %s", size.Total, r.stdout)
	}
	if r := sessRun(t, "archive", id, other.ID, "--db", path); r.code != 0 || strings.Count(r.stdout, "archived ") != 2 {
		t.Fatalf("archive: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	if got := listIDs(t, "--db", path); len(got) != 0 {
		t.Fatalf("archived sessions still listed: %v", got)
	}
	if got := listIDs(t, "--archived", "--db", path); len(got) != 2 {
		t.Fatalf("list --archived = %v", got)
	}
	// Archived is still shown and searched.
	if r := sessRun(t, "show", id, "--db", path); r.code != 0 {
		t.Fatalf("show an archived session: exit %d %s", r.code, r.stderr)
	}
	if r := sessRun(t, "search", "TestRetry", "--db", path); r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Fatalf("search an archived session: exit %d %s", r.code, r.stdout)
	}
	if r := sessRun(t, "unarchive", other.ID, "--json", "--db", path); r.code != 0 || strings.TrimSpace(r.stdout) != `{"archived":false,"session_id":"`+other.ID+`"}` {
		t.Fatalf("unarchive: exit %d %q", r.code, r.stdout)
	}

	if r := sessRun(t, "project", "set", id, other.ID, "--project", "Flaky tests", "--db", path); r.code != 0 {
		t.Fatalf("project set: exit %d %s", r.code, r.stderr)
	}
	if got := listIDs(t, "--project", "Flaky tests", "--db", path); len(got) != 1 || got[0] != other.ID {
		t.Fatalf("list --project = %v, want the one not archived", got)
	}
	if got := listIDs(t, "--project", "Flaky tests", "--all", "--db", path); len(got) != 2 {
		t.Fatalf("list --project --all = %v", got)
	}
	if r := sessRun(t, "list", "--db", path); !strings.Contains(r.stdout, "Flaky tests") {
		t.Fatalf("the list does not show the project: %s", r.stdout)
	}
	if r := sessRun(t, "project", "set", other.ID, "--project", "", "--db", path); r.code != 0 || !strings.Contains(r.stdout, "in no project") {
		t.Fatalf("project set \"\": exit %d %s", r.code, r.stdout)
	}

	for _, bad := range [][]string{
		{"archive"}, {"project", "set", id}, {"project", id, "--project", "x"}, {"project", "set", "--project", "x"},
		{"list", "--archived", "--all"}, {"list", "--project", ""}, {"compact-db", id},
	} {
		if r := sessRun(t, append(bad, "--db", path)...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", bad, r.code, r.stderr)
		}
	}
	if r := sessRun(t, "archive", id, "nope", "--db", path); r.code != 1 || !strings.Contains(r.stderr, `"nope"`) {
		t.Fatalf("archive an unknown id: exit %d %s", r.code, r.stderr)
	}
}

// deleteJSON runs `sessions delete --json` and reads its line.
func deleteJSON(t *testing.T, path, id string) map[string]any {
	t.Helper()
	r := sessRun(t, "delete", id, "--json", "--db", path)
	var out map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("delete %s: exit %d %q %s", id, r.code, r.stdout, r.stderr)
	}
	return out
}

func TestSessionsDeleteRemovesWorktreesAndKeepsOnesWithWork(t *testing.T) {
	path, dir, id, seq := gitFixture(t)
	fork := func() (string, string) {
		t.Helper()
		r := sessRun(t, "fork", id, "--at", fmt.Sprint(seq), "--with-files", "--json", "--db", path)
		var f struct {
			SessionID string `json:"session_id"`
			Folder    string `json:"folder"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &f) != nil {
			t.Fatalf("fork: exit %d %s", r.code, r.stderr)
		}
		return f.SessionID, f.Folder
	}

	// A fork whose folder differs from its parent's only by nothing: removed, branch too,
	// and its rows and checkpoint records with it.
	clean, folder := fork()
	d := deleteJSON(t, path, clean)
	if d["removed_folder"] != folder || d["branch"] != "loopdesk/"+clean || d["kept_folder"] != nil || d["rows"].(float64) < 2 || d["bytes"].(float64) <= 0 {
		t.Fatalf("delete a clean fork: %v", d)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Fatalf("folder left: %v", err)
	}
	if got := gitIn(t, dir, "branch", "--list", "loopdesk/*"); got != "" {
		t.Fatalf("branch left: %q", got)
	}
	out, err := exec.Command("sqlite3", path, "SELECT count(*) FROM chunks WHERE session_id = '"+clean+"'; SELECT count(*) FROM cp_captures WHERE session_id = '"+clean+"'").CombinedOutput()
	if err != nil || strings.Fields(string(out))[0] != "0" || strings.Fields(string(out))[1] != "0" {
		t.Fatalf("rows or checkpoint records left: %v %s", err, out)
	}

	// Work not committed and not brought back keeps the folder, and says why.
	dirty, folder := fork()
	os.WriteFile(filepath.Join(folder, "a.txt"), []byte("one\ntwo\nfork's own line\n"), 0o644)
	d = deleteJSON(t, path, dirty)
	reason, _ := d["kept_reason"].(string)
	if d["kept_folder"] != folder || d["removed_folder"] != nil || !strings.Contains(reason, "a.txt") {
		t.Fatalf("delete a fork with work: %v", d)
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "a.txt")); !strings.Contains(string(b), "fork's own line") {
		t.Fatalf("the work is gone: %q", b)
	}
	if r := sessRun(t, "show", dirty, "--db", path); r.code != 1 {
		t.Fatalf("the session itself should be gone: exit %d", r.code)
	}

	// Committed on its branch but merged nowhere: kept too.
	committed, folder := fork()
	gitIn(t, folder, "commit", "-qam", "fork's work")
	d = deleteJSON(t, path, committed)
	if reason, _ := d["kept_reason"].(string); d["kept_folder"] != folder || !strings.Contains(reason, "1 commit on loopdesk/"+committed) {
		t.Fatalf("delete a fork with a commit: %v", d)
	}
	// Human words say the same.
	fourth, folder := fork()
	os.WriteFile(filepath.Join(folder, "new.txt"), []byte("mine\n"), 0o644)
	if r := sessRun(t, "delete", fourth, "--db", path); r.code != 0 || !strings.Contains(r.stdout, "its folder is kept: "+folder+" (1 uncommitted change not brought back: new.txt;") {
		t.Fatalf("delete: exit %d %s", r.code, r.stdout)
	}
}

func TestSessionsCompactDBWaitsForRuns(t *testing.T) {
	path, id := sessFixture(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run, err := db.StartRun(ctx, store.NewRun{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	r := sessRun(t, "compact-db", "--db", path)
	if r.code != 1 || !strings.Contains(r.stderr, "a run is going: session "+id) {
		t.Fatalf("compact-db during a run: exit %d %s", r.code, r.stderr)
	}
	if r := sessRun(t, "delete", id, "--db", path); r.code != 1 || !strings.Contains(r.stderr, "session has a run in progress") {
		t.Fatalf("delete during a run: exit %d %s", r.code, r.stderr)
	}
	if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
		t.Fatal(err)
	}
	r = sessRun(t, "compact-db", "--json", "--db", path)
	var out struct {
		Before int64 `json:"bytes_before"`
		After  int64 `json:"bytes_after"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.After == 0 || out.After > out.Before {
		t.Fatalf("compact-db: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
}
