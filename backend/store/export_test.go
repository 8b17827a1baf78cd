package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "exported")
	run, _ := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Model: "m", Limits: json.RawMessage(`{"max_turns":3}`)})
	conversation(t, db, s.ID)
	db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed", Output: "The module is example.com/x."})
	if err := db.SetSetting(ctx, "base_url", "http://localhost:1234/v1"); err != nil {
		t.Fatal(err)
	}
	child, _ := db.Fork(ctx, s.ID, 2)

	var buf bytes.Buffer
	if err := db.Export(ctx, child.ID, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1+4 {
		t.Fatalf("export of a fork at 2 (+2 synthesized results; runs stay with the parent): %d lines:\n%s", len(lines), buf.String())
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
	}
	if strings.Contains(buf.String(), "localhost:1234") {
		t.Fatal("export contains settings")
	}
	var hdr struct {
		Session store.Session `json:"session"`
	}
	json.Unmarshal([]byte(lines[0]), &hdr)
	if hdr.Session.ParentID != s.ID || hdr.Session.ForkSeq != 2 {
		t.Fatalf("lineage missing from the export: %s", lines[0])
	}

	imp, err := db.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if imp.ID == child.ID || imp.Title != child.Title || imp.ParentID != s.ID || imp.ForkSeq != 2 {
		t.Fatalf("imported session: %+v", imp)
	}
	a, _ := db.Chunks(ctx, child.ID)
	b, _ := db.Chunks(ctx, imp.ID)
	for i := range a {
		if !bytes.Equal(a[i].Payload, b[i].Payload) || !a[i].CreatedAt.Equal(b[i].CreatedAt) || a[i].Kind != b[i].Kind {
			t.Fatalf("row %d differs after import", i+1)
		}
	}
	// The fork was taken mid-turn: it carries synthesized results for c1
	// and c2, which the import keeps as rows.
	if p, _ := db.PendingCalls(ctx, imp.ID); len(p) != 0 || len(b) != 4 {
		t.Fatalf("pending calls after import: %+v, %d rows", p, len(b))
	}
	runs, _ := db.ListRuns(ctx, imp.ID)
	if len(runs) != 0 {
		t.Fatalf("the fork has no runs of its own, import made %d", len(runs))
	}
	// Importing the parent brings its run along under a new id, rows pointing to it.
	mustAppend(t, db, s.ID, run.ID, user("thanks"))
	buf.Reset()
	db.Export(ctx, s.ID, &buf)
	imp2, err := db.Import(ctx, &buf)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ = db.ListRuns(ctx, imp2.ID)
	if len(runs) != 1 || runs[0].ID == run.ID || runs[0].Status != "completed" || string(runs[0].Limits) != `{"max_turns":3}` {
		t.Fatalf("imported runs: %+v", runs)
	}
	if rows, _ := db.Chunks(ctx, imp2.ID); rows[len(rows)-1].RunID != runs[0].ID {
		t.Fatalf("imported rows do not point to the imported run: %q", rows[len(rows)-1].RunID)
	}
}

func TestImportRefusesBadFiles(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "good")
	conversation(t, db, s.ID)
	var buf bytes.Buffer
	db.Export(ctx, s.ID, &buf)
	good := strings.Split(strings.TrimSpace(buf.String()), "\n")
	join := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

	cases := map[string]struct {
		file string
		line string
	}{
		"empty":             {"", "empty"},
		"not json":          {join(good[0], "{oops", good[2]), "line 2"},
		"no header":         {join(good[1:]...), "line 1"},
		"gap in seqs":       {join(good[0], good[1], good[3]), "line 3"},
		"unknown kind":      {join(good[0], strings.Replace(good[1], `"kind":"user"`, `"kind":"shout"`, 1)), "line 2"},
		"approval unpaired": {join(good[0], good[1], good[2], strings.Replace(good[3], `"c1"`, `"zz"`, 1)), "line 4"},
		"unknown type":      {join(good[0], `{"type":"secret","value":"sk-123"}`), "line 2"},
		"newer format":      {join(strings.Replace(good[0], `"format":1`, `"format":9`, 1)), "line 1"},
		"bad payload":       {join(good[0], strings.Replace(good[1], `"text":`, `"txt":`, 1)), "line 2"},
	}
	for name, c := range cases {
		_, err := db.Import(ctx, strings.NewReader(c.file))
		if !errors.Is(err, store.ErrBadImport) || !strings.Contains(err.Error(), c.line) {
			t.Errorf("%s: want ErrBadImport naming %q, got %v", name, c.line, err)
		}
	}
	if list, _ := db.ListSessions(ctx); len(list) != 1 {
		t.Fatalf("failed imports left %d sessions", len(list))
	}
	// A file cut after a tool call imports, with the call answered.
	imp, err := db.Import(ctx, strings.NewReader(join(good[:3]...)))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Chunks(ctx, imp.ID)
	if len(rows) != 4 || rows[2].Kind != store.KindToolResult || rows[3].Kind != store.KindToolResult {
		t.Fatalf("import of a file ending mid-turn: %d rows", len(rows))
	}
}

// An export (or the pending-calls check) while another writer holds the
// lock, as when the app appends during a run, reads a snapshot instead of
// waiting for the lock.
func TestExportDoesNotWaitForWriters(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	tx, err := db.SQL().BeginTx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO settings(key, value) VALUES ('k', 'v')`); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, &buf); err != nil {
		t.Fatalf("export while a writer holds the lock: %v", err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 7 {
		t.Fatalf("export has %d lines", n)
	}
	if _, err := db.PendingCalls(ctx, s.ID); err != nil {
		t.Fatalf("pending calls while a writer holds the lock: %v", err)
	}
}

// Spend survives an export and an import: the totals are equal, cache tokens included, and
// the imported runs still equal the sum of their rows.
func TestExportImportKeepsSpend(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "spend")
	run, _ := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Model: "m"})
	mustAppend(t, db, s.ID, run.ID, user("go"))
	spend(t, db, s.ID, run.ID, store.Counters{Turns: 3, ToolCalls: 2, InputTokens: 9000, OutputTokens: 300,
		CacheReadTokens: 4000, CacheWriteTokens: 1000, CostUSD: 0.071})
	db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"})
	before := totalsJSON(t, db, s.ID)
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	imp, err := db.Import(ctx, &buf)
	if err != nil {
		t.Fatal(err)
	}
	after := strings.Replace(totalsJSON(t, db, imp.ID), imp.ID, s.ID, 1)
	if after != before || !strings.Contains(before, `"cache_read_tokens":4000`) {
		t.Fatalf("totals before %s, after the round trip %s", before, after)
	}
	runs, _ := db.ListRuns(ctx, imp.ID)
	if derived, _ := db.RunCounters(ctx, imp.ID, runs[0].ID); derived != runs[0].Counters {
		t.Fatalf("imported run %+v, its rows %+v", runs[0].Counters, derived)
	}
}
