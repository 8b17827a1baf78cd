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

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitFixture: a repository (with .env named by .worktreeinclude) in which a
// session's call changed a.txt; returns the database, folder, session and row.
func gitFixture(t *testing.T) (dbPath, dir, id string, seq int64) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	for p, body := range map[string]string{"a.txt": "one\n", ".gitignore": ".env\n", ".worktreeinclude": ".env\n"} {
		os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644)
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "start")
	os.WriteFile(filepath.Join(dir, ".env"), []byte("KEY=1\n"), 0o600)
	dbPath = filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := checkpoint.New(db, checkpoint.Options{})
	defer rec.Close()
	s, _ := db.CreateSession(ctx, store.NewSession{Title: "git", Workspace: dir})
	db.Append(ctx, s.ID, "r", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: "c1", Name: "write_file", Arguments: "{}"}}}})
	cap, err := rec.Before(ctx, s.ID, "r", "c1", dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	rows, err := db.Append(ctx, s.ID, "r", store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "c1", Name: "write_file"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cap.After(ctx, rows[0].Seq); err != nil {
		t.Fatal(err)
	}
	return dbPath, dir, s.ID, rows[0].Seq
}

func TestSessionsForkWithFilesAndDelete(t *testing.T) {
	path, dir, id, seq := gitFixture(t)
	r := sessRun(t, "fork", id, "--at", fmt.Sprint(seq), "--with-files", "--json", "--db", path)
	var fork struct {
		SessionID string `json:"session_id"`
		Folder    string `json:"folder"`
		Branch    string `json:"branch"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &fork) != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("fork: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	var keys map[string]any
	json.Unmarshal([]byte(r.stdout), &keys)
	if len(keys) != 3 || fork.Branch != "loopdesk/"+fork.SessionID || fork.Folder != filepath.Join(filepath.Dir(path), "forks", fork.SessionID) {
		t.Fatalf("fork JSON: %s", r.stdout)
	}
	if got := gitIn(t, fork.Folder, "status", "--porcelain"); got != " M a.txt\n" {
		t.Fatalf("fork's git status: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(fork.Folder, ".env")); string(b) != "KEY=1\n" {
		t.Fatalf(".env not copied: %q", b)
	}
	show := sessRun(t, "list", "--json", "--db", path)
	if !strings.Contains(show.stdout, `"workspace":"`+fork.Folder+`"`) {
		t.Fatalf("the fork does not work in its folder: %s", show.stdout)
	}

	// --remove-folder on the parent (a person's own project) is refused.
	if r := sessRun(t, "delete", id, "--remove-folder", "--db", path); r.code != 1 || !strings.Contains(r.stderr, "not a fork folder") {
		t.Fatalf("remove the parent's folder: exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal("the parent's folder was touched")
	}
	r = sessRun(t, "delete", fork.SessionID, "--remove-folder", "--json", "--db", path)
	if r.code != 0 || !strings.Contains(r.stdout, `"removed_folder":"`+fork.Folder+`"`) {
		t.Fatalf("delete --remove-folder: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(fork.Folder); !os.IsNotExist(err) {
		t.Fatalf("fork folder left: %v", err)
	}
	if got := gitIn(t, dir, "branch", "--list", "loopdesk/*"); got != "" {
		t.Fatalf("branch left: %q", got)
	}

	// Without the flag a fork folder holding nothing but what its parent's folder holds goes
	// too (organise_test.go: one with work of its own is kept).
	r = sessRun(t, "fork", id, "--at", fmt.Sprint(seq), "--with-files", "--json", "--db", path)
	json.Unmarshal([]byte(r.stdout), &fork)
	r = sessRun(t, "delete", fork.SessionID, "--db", path)
	if r.code != 0 || !strings.Contains(r.stdout, "removed its folder "+fork.Folder) {
		t.Fatalf("delete: exit %d %s", r.code, r.stdout)
	}
}
