package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/store/storetest"
)

// realJournal makes a journal the way a person does: runs against the scripted model, each a
// new session with a tool call, its result and a long answer.
func realJournal(t *testing.T, e *runEnv, runs int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte(strings.Repeat("buy milk\n", 60)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < runs; i++ {
		e.srv.Enqueue(
			fakeai.ToolCalls(fakeai.Call{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: `{"path":"notes.txt"}`}),
			fakeai.Text(strings.Repeat(fmt.Sprintf("answer %d says buy milk. ", i), 60)),
		)
		if r := e.run(context.Background(), "", "--json", "--approve", "read-only", fmt.Sprintf("question %d", i)); r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
}

type mainOut struct {
	code           int
	stdout, stderr string
}

func mainWith(dbPath string, args ...string) mainOut {
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "LOOPDESK_DB" {
			return dbPath
		}
		return os.Getenv(k)
	}
	l := Main(args, getenv, strings.NewReader(""), &out, &errb)
	return mainOut{l.Code, out.String(), errb.String()}
}

// damagedRows overwrites a leaf page of the rows from the middle of the file and returns
// the rows it held as "session/seq", sorted.
func damagedRows(t *testing.T, path string) []string {
	t.Helper()
	lost, err := storetest.DamageMiddleLeaf(path)
	if err != nil {
		t.Fatal(err)
	}
	return lost
}

// Every command but db check, recover and backup stops at a damaged file with the same
// message and exit 1, and none changes a byte of it.
func TestDamagedDatabaseRefusedByEveryCommand(t *testing.T) {
	e := runNewEnv(t)
	realJournal(t, e, 12)
	lost := damagedRows(t, e.db)
	before := storetest.Hash(e.db)
	commands := [][]string{
		{"sessions", "list"}, {"sessions", "search", "milk"}, {"run", "--db", e.db, "--base-url", e.srv.URL(), "--model", "m", "hello"},
		{"inbox"}, {"settings"}, {"approvals", "report"}, {"hooks", "list"}, {"skills", "list"}, {"otel", "export", "--db", e.db},
		{"mcp", "list"}, {"agents", "list"}, {"acp"}, {"memory", "list"},
	}
	var first string
	for _, args := range commands {
		r := mainWith(e.db, args...)
		if r.code != ExitOther || !strings.Contains(r.stderr, "is damaged") || !strings.Contains(r.stderr, e.db) {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if first == "" {
			first = r.stderr
		} else if r.stderr != first {
			t.Errorf("%v says %q, not the same message as the others (%q)", args, r.stderr, first)
		}
	}
	if storetest.Hash(e.db) != before {
		t.Fatal("a command wrote to the damaged file")
	}

	r := mainWith(e.db, "db", "check", "--json")
	if r.code != ExitOther {
		t.Errorf("db check of a damaged file: exit %d", r.code)
	}
	var named []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var p struct {
			Problem   string `json:"problem"`
			SessionID string `json:"session_id"`
			Seq       int64  `json:"seq"`
			Detail    string `json:"detail"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.Problem == "" {
			t.Fatalf("not a problem line: %q %v", l, err)
		}
		if p.SessionID != "" {
			named = append(named, fmt.Sprintf("%s/%d", p.SessionID, p.Seq))
		}
	}
	sort.Strings(named)
	if strings.Join(named, " ") != strings.Join(lost, " ") {
		t.Errorf("db check names %v; the page held %v", named, lost)
	}

	backup := filepath.Join(t.TempDir(), "evidence.db")
	if r := mainWith(e.db, "db", "backup", backup); r.code != ExitOther || !strings.Contains(r.stdout, "with its damage") {
		t.Errorf("db backup of a damaged file: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "recovered.db")
	r = mainWith(e.db, "db", "recover", out)
	if r.code != ExitOther || !strings.Contains(r.stdout, "recovered 12 session(s)") {
		t.Fatalf("db recover: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if storetest.Hash(e.db) != before {
		t.Fatal("db check, backup or recover wrote to the damaged file")
	}
	if r := mainWith(out, "db", "check"); r.code != ExitOK {
		t.Errorf("the recovered file fails db check: %s%s", r.stdout, r.stderr)
	}
	if r := mainWith(out, "sessions", "list", "--json", "--db", out); r.code != ExitOK || strings.Count(r.stdout, `"id"`) != 12 {
		t.Errorf("the recovered file's sessions: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestDBCheckHealthy(t *testing.T) {
	e := runNewEnv(t)
	realJournal(t, e, 2)
	r := mainWith(e.db, "db", "check", "--json")
	if r.code != ExitOK || r.stdout != "" {
		t.Fatalf("healthy journal: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if r := mainWith(e.db, "db", "check"); r.code != ExitOK || !strings.Contains(r.stdout, "no problem found") {
		t.Fatalf("healthy journal, for a person: %q", r.stdout)
	}
	if r := mainWith(e.db, "db", "frobnicate"); r.code != ExitUsage {
		t.Errorf("unknown db subcommand: exit %d", r.code)
	}
}

func TestSchemaAheadAndTruncatedRefused(t *testing.T) {
	e := runNewEnv(t)
	realJournal(t, e, 4)
	trunc := filepath.Join(t.TempDir(), "t.db")
	b, _ := os.ReadFile(e.db)
	os.WriteFile(trunc, b[:len(b)/2], 0o600)
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, 'ahead', 0)`, store.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for path, want := range map[string]string{e.db: "newer Loopdesk", trunc: "truncated"} {
		before := storetest.Hash(path)
		r := mainWith(path, "sessions", "list")
		if r.code != ExitOther || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, %q", want, r.code, r.stderr)
		}
		if storetest.Hash(path) != before {
			t.Errorf("%s: the file changed", want)
		}
	}
}

// A backup taken while a run writes is a snapshot of the journal: it passes the check and
// every row it holds is the journal's row.
func TestBackupDuringARun(t *testing.T) {
	e := runNewEnv(t)
	realJournal(t, e, 1)
	var replies []fakeai.Reply
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("f%d.txt", i) // a different call each time: identical ones stop the run
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		replies = append(replies, fakeai.ToolCalls(fakeai.Call{ID: fmt.Sprintf("c%d", i), Name: "read_file", Arguments: fmt.Sprintf(`{"path":%q}`, name)}))
	}
	e.srv.Enqueue(append(replies, fakeai.Text("done"))...)
	done := make(chan runOut, 1)
	go func() {
		done <- e.run(context.Background(), "", "--json", "--approve", "read-only", "--max-tool-calls", "100", "--max-turns", "100", "read the files")
	}()
	dir := t.TempDir()
	var backups []string
	for i := 0; ; i++ {
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("the run: exit %d %s", r.code, r.stderr)
			}
			if len(backups) == 0 {
				t.Fatal("the run ended before a backup was taken")
			}
			compareToJournal(t, e.db, backups)
			return
		default:
		}
		p := filepath.Join(dir, fmt.Sprintf("b%d.db", i))
		if r := mainWith(e.db, "db", "backup", p); r.code != ExitOK {
			t.Fatalf("backup %d during the run: exit %d %s%s", i, r.code, r.stdout, r.stderr)
		}
		backups = append(backups, p)
	}
}

func compareToJournal(t *testing.T, journal string, backups []string) {
	t.Helper()
	rows := func(path string) map[string]string {
		db, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		out := map[string]string{}
		ss, err := db.ListSessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			cs, err := db.Chunks(context.Background(), s.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				b, _ := json.Marshal(c.Payload)
				out[fmt.Sprintf("%s/%d", s.ID, c.Seq)] = string(c.Kind) + string(b)
			}
		}
		return out
	}
	final := rows(journal)
	grew := false
	for _, b := range backups {
		got := rows(b)
		if len(got) < len(final) {
			grew = true
		}
		for k, v := range got {
			// A run still going when the backup was taken may have its dangling call answered
			// "interrupted" by repair when the backup is opened: only the rows before it count.
			if final[k] != v && !strings.Contains(v, "interrupted") {
				t.Errorf("backup %s row %s differs from the journal's", b, k)
			}
		}
	}
	if !grew {
		t.Log("every backup was taken after the last row")
	}
}

// The helper process for TestRestoreRefusedWhileARunHoldsTheDatabase: `loopdesk run` in a
// process of its own (LOOPDESK_CLI_MAIN_ARGS, JSON), as a person would start it.
func runMainFromEnv() bool {
	raw := os.Getenv("LOOPDESK_CLI_MAIN_ARGS")
	if raw == "" {
		return false
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(Main(args, nil, os.Stdin, os.Stdout, os.Stderr).Code)
	return true
}

func TestRestoreRefusedWhileARunHoldsTheDatabase(t *testing.T) {
	e := runNewEnv(t)
	realJournal(t, e, 2)
	backup := filepath.Join(t.TempDir(), "b.db")
	if r := mainWith(e.db, "db", "backup", backup); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	e.srv.Enqueue(fakeai.Stall(30 * time.Second))
	args, _ := json.Marshal([]string{"run", "--db", e.db, "--workspace", e.ws, "--base-url", e.srv.URL(), "--model", "m", "--json", "wait"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LOOPDESK_CLI_MAIN_ARGS="+string(args))
	out := &notifyBuffer{wake: make(chan struct{}, 1)} // written by exec's copying goroutine
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out.waitFor(t, "run_started")
	before := storetest.Hash(e.db)
	r := mainWith(e.db, "db", "restore", backup)
	if r.code != ExitOther || !strings.Contains(r.stderr, "in use") || !strings.Contains(r.stderr, fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Errorf("restore while a run holds the file: exit %d %q", r.code, r.stderr)
	}
	if storetest.Hash(e.db) != before {
		t.Error("a refused restore changed the file")
	}
	if _, err := os.Stat(e.db + ".before-restore"); err == nil {
		t.Error("a refused restore left a .before-restore")
	}
	cmd.Process.Kill()
	cmd.Wait()

	current := storetest.Hash(e.db)
	if r := mainWith(e.db, "db", "restore", backup); r.code != ExitOK {
		t.Fatalf("restore with nobody holding the file: exit %d %s", r.code, r.stderr)
	}
	if storetest.Hash(e.db+".before-restore") != current {
		t.Error("the file before the restore was not kept as .before-restore")
	}
	if r := mainWith(e.db, "sessions", "list", "--json", "--db", e.db); r.code != ExitOK || strings.Count(r.stdout, `"id"`) != 2 {
		t.Errorf("the restored journal: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
}
