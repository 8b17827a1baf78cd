package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A restore row is history the person sees and searches, never a message
// the model receives, and it survives export and import.
func TestRestoreRowIsNotSentToTheModel(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "restore")
	conversation(t, db, s.ID)
	before := messagesOf(t, db, s.ID)
	rows := mustAppend(t, db, s.ID, "", store.NewChunk{Kind: store.KindRestore, Payload: store.RestorePayload{
		ToSeq: 2, Restored: []store.RestoredPath{{Path: "notes/plan.md", Change: "modified"}}}})
	if rows[0].Kind != store.KindRestore || !strings.Contains(string(rows[0].Payload), `"to_seq":2`) {
		t.Fatalf("stored %s %s", rows[0].Kind, rows[0].Payload)
	}
	after := messagesOf(t, db, s.ID)
	if len(after) != len(before)+1 {
		t.Fatalf("the restore did not reach the model once: %d messages, want %d", len(after), len(before)+1)
	}
	var note struct{ Role, Content string }
	json.Unmarshal(after[len(after)-1], &note)
	if note.Role != "user" || !strings.HasPrefix(note.Content, store.NotePrefix) ||
		!strings.Contains(note.Content, "notes/plan.md") || !strings.Contains(note.Content, "before row 2") {
		t.Fatalf("the restore note: %s", after[len(after)-1])
	}
	hits, err := db.Search(ctx, `"plan.md"`, 10)
	if err != nil || len(hits) != 1 || hits[0].Seq != rows[0].Seq {
		t.Fatalf("search for a restored path: %+v %v", hits, err)
	}
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindRestore, Payload: json.RawMessage(`{"to_seq":1,"bogus":1}`)}); err == nil {
		t.Fatal("a restore payload with unknown fields was stored")
	}

	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	imp, err := db.Import(ctx, &buf)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := db.Chunks(ctx, imp.ID)
	last := got[len(got)-1]
	if last.Kind != store.KindRestore || !bytes.Equal(last.Payload, rows[0].Payload) {
		t.Fatalf("imported last row %s %s", last.Kind, last.Payload)
	}
}

// Extra line types pass through ExportWith/ImportWith in the same snapshot
// and transaction; an unknown type is still refused.
func TestExportImportExtraLines(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "extra")
	conversation(t, db, s.ID)
	var buf bytes.Buffer
	err := db.ExportWith(ctx, s.ID, &buf, store.ExportOptions{Extra: func(ctx context.Context, q store.Querier, id string, emit func(any) error) error {
		return emit(map[string]any{"type": "note", "session": id})
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(ctx, bytes.NewReader(buf.Bytes())); err == nil {
		t.Fatal("plain Import accepted an unknown line type")
	}
	var seen []string
	imp, err := db.ImportWith(ctx, bytes.NewReader(buf.Bytes()), store.ImportOptions{Types: []string{"note"},
		Extra: func(ctx context.Context, q store.Querier, in store.Session, lines []json.RawMessage) error {
			var n int
			if err := q.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE session_id = ?`, in.ID).Scan(&n); err != nil {
				return err
			}
			for _, l := range lines {
				seen = append(seen, string(l))
			}
			if n == 0 {
				t.Error("the rows are not visible to the extra lines' handler")
			}
			return nil
		}})
	if err != nil || len(seen) != 1 || !strings.Contains(seen[0], s.ID) || imp.ID == s.ID {
		t.Fatalf("import: %v %q", err, seen)
	}
}

// A database written by a build that knew only migration 0001 keeps its
// rows, their search index and the append-only rule through 0002, which
// rebuilds the chunks table to admit restore rows.
func TestMigrationFromVersion1KeepsRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	init1, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{string(init1),
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`,
		`INSERT INTO schema_migrations VALUES (1, 'init', 0)`,
		`INSERT INTO sessions(id, title, created_at, updated_at, last_seq) VALUES ('s1', 'old', 0, 0, 2)`,
		`INSERT INTO chunks(session_id, seq, kind, payload, created_at) VALUES ('s1', 1, 'user', '{"text":"find the flamingo"}', 0)`,
		`INSERT INTO chunks(session_id, seq, kind, payload, created_at) VALUES ('s1', 2, 'assistant', '{"text":"the flamingo is pink","reasoning":"","tool_calls":[]}', 0)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db := openPath(t, path)
	rows, err := db.Chunks(ctx, "s1")
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows after migrating: %d %v", len(rows), err)
	}
	hits, err := db.Search(ctx, "flamingo", 10)
	if err != nil || len(hits) != 2 {
		t.Fatalf("search after migrating: %+v %v", hits, err)
	}
	if _, err := db.SQL().Exec(`UPDATE chunks SET payload = '{}' WHERE seq = 1`); err == nil {
		t.Fatal("rows are editable after the migration")
	}
	mustAppend(t, db, "s1", "", store.NewChunk{Kind: store.KindRestore, Payload: store.RestorePayload{ToSeq: 1}})
	if err := db.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.Search(ctx, "flamingo", 10); len(hits) != 0 {
		t.Fatalf("deleted rows still found: %+v", hits)
	}
}
