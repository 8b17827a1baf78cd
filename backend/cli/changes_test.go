package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// cpFixture: a session whose shell call edited, removed and created files.
func cpFixture(t *testing.T) (dbPath, dir, id string, seq int64) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	for p, body := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dbPath = filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := checkpoint.New(db, checkpoint.Options{})
	defer rec.Close()
	s, _ := db.CreateSession(ctx, store.NewSession{Title: "cp", Workspace: dir})
	db.Append(ctx, s.ID, "r", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: "c1", Name: "run_shell_command", Arguments: "{}"}}}})
	cap, err := rec.Before(ctx, s.ID, "r", "c1", dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "sed -i s/alpha/ALPHA/ a.txt && rm b.txt && echo d > d.txt && echo C > c.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	rows, err := db.Append(ctx, s.ID, "r", store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "c1", Name: "run_shell_command"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cap.After(ctx, rows[0].Seq); err != nil {
		t.Fatal(err)
	}
	return dbPath, dir, s.ID, rows[0].Seq
}

func TestSessionsChangesJSON(t *testing.T) {
	path, _, id, seq := cpFixture(t)
	r := sessRun(t, "changes", "--json", "--db", path, id)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := sessLines(t, r.stdout)
	var got []string
	for _, l := range lines {
		keys := make([]string, 0, len(l))
		for k := range l {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, []string{"by", "change", "path", "seq", "sha256", "size"}) || l["seq"] != float64(seq) || l["by"] != "agent" {
			t.Fatalf("line %v", l)
		}
		got = append(got, l["change"].(string)+" "+l["path"].(string))
	}
	if strings.Join(got, ",") != "modified a.txt,deleted b.txt,modified c.txt,created d.txt" {
		t.Fatalf("changes %v", got)
	}
	if lines[1]["size"] != float64(len("beta\n")) {
		t.Fatalf("a deleted file's size is the size it had: %v", lines[1])
	}
	human := sessRun(t, "changes", "--db", path, id)
	if human.code != 0 || !strings.Contains(human.stdout, "deleted   b.txt") {
		t.Fatalf("human: %d %q", human.code, human.stdout)
	}
}

func TestSessionsRestore(t *testing.T) {
	path, dir, id, seq := cpFixture(t)
	to := strconv.FormatInt(seq, 10)
	r := sessRun(t, "restore", "--to", to, "--dry-run", "--json", "--db", path, id)
	if r.code != 0 || strings.TrimSpace(r.stdout) != `{"restored":[{"path":"a.txt","change":"modified"},{"path":"b.txt","change":"deleted"},{"path":"c.txt","change":"modified"},{"path":"d.txt","change":"created"}],"dry_run":true,"overwritten":[]}` {
		t.Fatalf("dry run: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "d.txt")); err != nil {
		t.Fatal("the dry run changed the folder")
	}
	// The person edits a.txt: a restore refuses, names it, changes nothing.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("mine\n"), 0o644)
	r = sessRun(t, "restore", "--to", to, "--db", path, id)
	if r.code != 1 || !strings.Contains(r.stderr, "a.txt") || strings.Contains(r.stderr, "c.txt") ||
		!strings.Contains(r.stderr, "--force PATH") || !strings.Contains(r.stderr, "--force-all") {
		t.Fatalf("conflict: %d %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.txt")); string(b) != "C\n" {
		t.Fatal("a refused restore changed a file")
	}
	r = sessRun(t, "restore", "--to", to, "--path", "c.txt", "--json", "--db", path, id)
	if r.code != 0 || strings.TrimSpace(r.stdout) != `{"restored":[{"path":"c.txt","change":"modified"}],"dry_run":false,"overwritten":[]}` {
		t.Fatalf("one file: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.txt")); string(b) != "gamma\n" {
		t.Fatalf("c.txt = %q", b)
	}
	show := sessRun(t, "show", "--db", path, id)
	if !strings.Contains(show.stdout, "restore      restored 1 file(s) to before row "+to+": c.txt") {
		t.Fatalf("show:\n%s", show.stdout)
	}
	if r := sessRun(t, "restore", "--db", path, id); r.code != 2 {
		t.Fatalf("restore without --to: exit %d", r.code)
	}
}

// --force PATH overwrites only the named conflicting file; --force-all every one.
func TestSessionsRestoreForce(t *testing.T) {
	path, dir, id, seq := cpFixture(t)
	to := strconv.FormatInt(seq, 10)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("mine too\n"), 0o644)
	r := sessRun(t, "restore", "--to", to, "--force", "a.txt", "--json", "--db", path, id)
	if r.code != 1 || !strings.Contains(r.stderr, "c.txt") || strings.Contains(r.stderr, "a.txt (") {
		t.Fatalf("--force naming one of two conflicts: %d %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "mine\n" {
		t.Fatal("a refused restore overwrote a.txt")
	}
	r = sessRun(t, "restore", "--to", to, "--path", "a.txt", "--force", "a.txt", "--json", "--db", path, id)
	if r.code != 0 || strings.TrimSpace(r.stdout) != `{"restored":[{"path":"a.txt","change":"modified"}],"dry_run":false,"overwritten":["a.txt"]}` {
		t.Fatalf("--force a.txt: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "alpha\n" {
		t.Fatalf("a.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.txt")); string(b) != "mine too\n" {
		t.Fatalf("--force a.txt touched c.txt: %q", b)
	}
	r = sessRun(t, "restore", "--to", to, "--force-all", "--json", "--db", path, id)
	if r.code != 0 || !strings.Contains(r.stdout, `"overwritten":["c.txt"]`) {
		t.Fatalf("--force-all: %d %s %s", r.code, r.stdout, r.stderr)
	}
	for p, want := range map[string]string{"c.txt": "gamma\n", "b.txt": "beta\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, p)); string(b) != want {
			t.Fatalf("after --force-all %s = %q", p, b)
		}
	}
}

func TestSessionsExportContents(t *testing.T) {
	path, _, id, _ := cpFixture(t)
	plain := sessRun(t, "export", "--db", path, id)
	full := sessRun(t, "export", "--contents", "--db", path, id)
	if plain.code != 0 || full.code != 0 || !strings.Contains(plain.stdout, `"type":"change"`) ||
		strings.Contains(plain.stdout, `"type":"blob"`) || !strings.Contains(full.stdout, `"type":"blob"`) {
		t.Fatalf("export: %d %d\n%s", plain.code, full.code, plain.stdout)
	}
	f := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(f, []byte(full.stdout), 0o644)
	imp := sessRun(t, "import", "--json", "--db", path, f)
	if imp.code != 0 {
		t.Fatalf("import: %s", imp.stderr)
	}
	newID := sessLines(t, imp.stdout)[0]["session_id"].(string)
	ch := sessRun(t, "changes", "--json", "--db", path, newID)
	if len(sessLines(t, ch.stdout)) != 4 {
		t.Fatalf("imported changes: %s", ch.stdout)
	}
}
