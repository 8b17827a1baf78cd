package checkpoint_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// FuzzImportSession feeds arbitrary bytes to the one session import (the window's Import and
// `loopdesk sessions import`). A file it refuses is a bad import file naming what is wrong,
// and not one row of any table was written; a file it takes comes out of Export in a form
// that imports again into the same rows.
func FuzzImportSession(f *testing.F) {
	f.Add([]byte(`{"type":"session","format":1,"session":{"id":"s1","title":"t","workspace":"/w"}}` + "\n"))
	f.Add([]byte(`{"type":"chunk","seq":1}` + "\n"))
	f.Add([]byte("not json\n"))
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(f.TempDir(), "loopdesk.db")) // one per worker process
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	counts := tableCounts(f, db)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := counts()
		s, err := checkpoint.Import(ctx, db, bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, store.ErrBadImport) {
				t.Fatalf("refused, but not as a bad import file: %v", err)
			}
			if after := counts(); after != before {
				t.Fatalf("a refused import wrote rows: row counts %s, then %s", before, after)
			}
			return
		}
		defer deleteSession(t, db, s.ID)
		var out bytes.Buffer
		if err := checkpoint.Export(ctx, db, s.ID, &out, true); err != nil {
			t.Fatalf("an imported session does not export: %v", err)
		}
		again, err := checkpoint.Import(ctx, db, bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("an exported session does not import: %v\n%s", err, out.Bytes())
		}
		defer deleteSession(t, db, again.ID)
		if a, b := chunkRows(t, db, s.ID), chunkRows(t, db, again.ID); a != b {
			t.Fatalf("imported rows\n%s\nexported and imported again\n%s", a, b)
		}
	})
}

// tableCounts is a query of every table's row count, in one row.
func tableCounts(t testing.TB, db *store.DB) func() string {
	rows, err := db.SQL().Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var counts []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, `(SELECT count(*) FROM "`+n+`")`)
	}
	rows.Close()
	q := `SELECT ` + strings.Join(counts, ` || ' ' || `)
	return func() string {
		var c string
		if err := db.SQL().QueryRow(q).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// chunkRows is a session's rows as the run reads them: seq, kind and payload.
func chunkRows(t *testing.T, db *store.DB, id string) string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT seq, kind, payload FROM chunks WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var seq int64
		var kind, payload string
		if err := rows.Scan(&seq, &kind, &payload); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %s\n", seq, kind, payload)
	}
	return b.String()
}

func deleteSession(t *testing.T, db *store.DB, id string) {
	if err := db.DeleteSession(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}
