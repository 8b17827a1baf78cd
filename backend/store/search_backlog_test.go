package store_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The search index catches up in batches (migration 0013), but a search never misses a
// committed row: rows appended since the last batch, by this handle or another process's,
// are found at once.
func TestSearchFindsRowsNotYetIndexed(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	other := openPath(t, path) // another process on the same file
	s := mustSession(t, db, "a")
	mustAppend(t, db, s.ID, "", user("where is the axolotl?"))
	o := mustSession(t, other, "b")
	mustAppend(t, other, o.ID, "", user("the axolotl is in the pond"))
	if n := backlog(t, db); n != 2 {
		t.Fatalf("backlog before searching: %d rows, want 2 (the append path must not index)", n)
	}
	for _, h := range []*store.DB{db, other} {
		hits, err := h.Search(ctx, "axolotl", 10)
		if err != nil || len(hits) != 2 {
			t.Fatalf("search: %+v %v", hits, err)
		}
	}
	if n := backlog(t, db); n != 0 {
		t.Fatalf("backlog after a search: %d rows", n)
	}
	checkIndex(t, db, "axolotl", "pond", "the")
}

// Deleting a session whose rows are partly indexed and partly waiting leaves the index
// sound (FTS5 must never be told to delete a row it does not hold) and the rows gone.
func TestDeletingRowsNotYetIndexedKeepsTheIndexSound(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "doomed")
	keep := mustSession(t, db, "kept")
	mustAppend(t, db, s.ID, "", user("the quokka smiles"))
	mustAppend(t, db, keep.ID, "", user("a quokka too"))
	if hits, err := db.Search(ctx, "quokka", 10); err != nil || len(hits) != 2 { // indexes both
		t.Fatalf("search: %+v %v", hits, err)
	}
	mustAppend(t, db, s.ID, "", assistant("the quokka waits in the backlog"))
	if n := backlog(t, db); n != 1 {
		t.Fatalf("backlog: %d rows, want 1", n)
	}
	if err := db.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, db); n != 0 {
		t.Fatalf("backlog after deleting its session: %d rows", n)
	}
	checkIndex(t, db, "quokka", "the", "backlog", "waits")
	hits, err := db.Search(ctx, "quokka", 10)
	if err != nil || len(hits) != 1 || hits[0].SessionID != keep.ID {
		t.Fatalf("after deleting: %+v %v", hits, err)
	}
	// A row reusing a deleted row's id is indexed as its own text.
	mustAppend(t, db, keep.ID, "", assistant("now a wombat"))
	if hits, err := db.Search(ctx, "wombat", 10); err != nil || len(hits) != 1 || hits[0].Seq != 2 {
		t.Fatalf("reused id: %+v %v", hits, err)
	}
	checkIndex(t, db, "quokka", "wombat", "backlog", "now")
}

// Appends index the backlog themselves once 64 rows wait, so the rows a search must index
// first stay few however long a run goes on without a search.
func TestAppendsIndexTheBacklogInBatches(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "long run")
	most := 0
	for i := range 200 {
		mustAppend(t, db, s.ID, "", user(fmt.Sprintf("note %d about the narwhal", i)))
		most = max(most, backlog(t, db))
	}
	if most >= 64 {
		t.Fatalf("backlog grew to %d rows", most)
	}
	if n := backlog(t, db); n == 0 {
		t.Fatal("every append indexed its row: no batching")
	}
	hits, err := db.Search(ctx, "narwhal", 500)
	if err != nil || len(hits) != 200 {
		t.Fatalf("search: %d hits %v", len(hits), err)
	}
	checkIndex(t, db, "narwhal", "note", "7")
}

// Forks and imports are bulk writes: their rows are indexed in their own commit.
func TestForkAndImportIndexTheirRows(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "origin")
	mustAppend(t, db, s.ID, "", user("the pangolin rolls"))
	mustAppend(t, db, s.ID, "", assistant("into a ball"))
	if _, err := db.Fork(ctx, s.ID, 2); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, db); n != 0 {
		t.Fatalf("backlog after a fork: %d rows", n)
	}
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, db); n != 0 {
		t.Fatalf("backlog after an import: %d rows", n)
	}
	checkIndex(t, db, "pangolin", "ball", "interrupted")
	if hits, err := db.Search(ctx, "pangolin", 10); err != nil || len(hits) != 3 {
		t.Fatalf("search: %+v %v", hits, err)
	}
}

// backlog counts the rows left out of the search index (above the mark, search.go).
func backlog(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM chunks WHERE id > (SELECT coalesce(max(id), 0) FROM chunks_fts_docsize)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkIndex compares the search index with one built afresh from the rows in one go: the same hits with the same ranks for each word, so the document count and
// lengths bm25 ranks by are right too. It is called with the backlog indexed.
func checkIndex(t *testing.T, db *store.DB, words ...string) {
	t.Helper()
	if n := backlog(t, db); n != 0 {
		t.Fatalf("checkIndex with %d rows waiting", n)
	}
	for _, q := range []string{`DROP TABLE IF EXISTS ref_fts`,
		`CREATE VIRTUAL TABLE ref_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2')`,
		`INSERT INTO ref_fts(rowid, body) SELECT id, body FROM chunk_text ORDER BY id`} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	hits := func(table, word string) string {
		rows, err := db.SQL().Query(fmt.Sprintf(`SELECT rowid, printf('%%.9f', rank) FROM %s WHERE %[1]s MATCH ? ORDER BY rank, rowid`, table), word)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, rank string
			rows.Scan(&id, &rank)
			out = append(out, id+":"+rank)
		}
		return strings.Join(out, " ")
	}
	for _, w := range words {
		if got, want := hits("chunks_fts", w), hits("ref_fts", w); got != want {
			t.Errorf("search index for %q: %s, rebuilt afresh: %s", w, got, want)
		}
	}
	var n, want int
	db.SQL().QueryRow(`SELECT count(*) FROM chunks_fts_docsize`).Scan(&n)
	db.SQL().QueryRow(`SELECT count(*) FROM chunks`).Scan(&want)
	if n != want {
		t.Errorf("search index holds %d rows, the session rows are %d", n, want)
	}
	if _, err := db.SQL().Exec(`DROP TABLE ref_fts`); err != nil {
		t.Fatal(err)
	}
}
