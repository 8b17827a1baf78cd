package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestSearch(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	a := mustSession(t, db, "build fix")
	b := mustSession(t, db, "docs")
	mustAppend(t, db, a.ID, "", user("why does the flaky integration test fail?"))
	mustAppend(t, db, a.ID, "", assistant("Let me grep.", call("c1", "search_text", `{"pattern":"zebrafish"}`)))
	mustAppend(t, db, a.ID, "", result("c1", "search_text", "pkg/x_test.go:12: t.Skip(\"flaky on CI\")"))
	mustAppend(t, db, b.ID, "", user("write the README"))
	mustAppend(t, db, b.ID, "", assistant("The README now explains the flaky flaky flaky retries."))

	hits, err := db.Search(ctx, "flaky", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 {
		t.Fatalf("want 3 rows mentioning flaky, got %+v", hits)
	}
	// bm25: the row that says it three times in few words ranks first.
	if hits[0].SessionID != b.ID || hits[0].Seq != 2 || hits[0].SessionTitle != "docs" || hits[0].Kind != store.KindAssistant {
		t.Errorf("best hit: %+v", hits[0])
	}
	for i, h := range hits {
		if !strings.Contains(h.Snippet, store.MarkStart+"flaky"+store.MarkEnd) {
			t.Errorf("hit %d snippet lacks highlight: %q", i, h.Snippet)
		}
		if i > 0 && h.Rank > hits[i-1].Rank {
			t.Errorf("hits not ordered by rank: %v then %v", hits[i-1].Rank, h.Rank)
		}
	}
	// Tool arguments and results are searchable; limit applies.
	if hits, err := db.Search(ctx, "zebrafish", 10); err != nil || len(hits) != 1 || hits[0].Seq != 2 {
		t.Errorf("tool arguments: %+v %v", hits, err)
	}
	if hits, err := db.Search(ctx, `"flaky on CI"`, 10); err != nil || len(hits) != 1 || hits[0].Kind != store.KindToolResult {
		t.Errorf("tool result phrase: %+v %v", hits, err)
	}
	if hits, err := db.Search(ctx, "flaky", 1); err != nil || len(hits) != 1 {
		t.Errorf("limit 1: %d hits, %v", len(hits), err)
	}
	// Deleted sessions disappear from the index; forks are found too.
	f, err := db.Fork(ctx, a.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	hits, err = db.Search(ctx, "flaky OR zebrafish", 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, h := range hits {
		got[h.SessionID]++
	}
	if got[a.ID] != 0 || got[f.ID] != 1 || got[b.ID] != 1 {
		t.Errorf("after delete: %+v", hits)
	}
}

func TestSearchBadQueries(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	mustAppend(t, db, s.ID, "", user("hello world"))
	for _, q := range []string{`"unterminated`, `AND`, `hello AND`, `nosuchcolumn:hello`, `(`, "  "} {
		_, err := db.Search(ctx, q, 10)
		if !errors.Is(err, store.ErrBadQuery) {
			t.Errorf("query %q: want ErrBadQuery, got %v", q, err)
		}
	}
	// Literal makes any text searchable.
	mustAppend(t, db, s.ID, "", user(`call time.Sleep(10) in "retry.go"`))
	for _, q := range []string{"time.Sleep", `"retry.go"`, `(`, `time.Sleep "unbalanced`} {
		hits, err := db.Search(ctx, store.Literal(q), 10)
		want := 1
		if q == "(" || strings.Contains(q, "unbalanced") {
			want = 0
		}
		if err != nil || len(hits) != want {
			t.Errorf("literal %q: %d hits, %v", q, len(hits), err)
		}
	}
	// The database is still fine afterwards.
	if hits, err := db.Search(ctx, "hel*", 10); err != nil || len(hits) != 1 {
		t.Errorf("prefix query after errors: %+v %v", hits, err)
	}
}

// A hit in a long tool output gets a snippet around the matched word like any other hit,
// without FTS5 tokenising the whole output for it.
func TestSearchSnippetOfALongOutput(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "long output")
	long := strings.Repeat("lorem ipsum dolor sit amet\n", 2000) + "the Needle_case sits here at the end"
	mustAppend(t, db, s.ID, "r", user("look"))
	mustAppend(t, db, s.ID, "r", assistant("", call("c1", "read_file", `{"path":"big"}`)))
	mustAppend(t, db, s.ID, "r", result("c1", "read_file", long))
	for _, q := range []string{"needle_case", "Needle*", `"sits here" OR nothing`} {
		hits, err := db.Search(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || !strings.HasPrefix(hits[0].Snippet, "…") || len(hits[0].Snippet) > 200 {
			t.Fatalf("%s: hits %+v", q, hits)
		}
		if want := store.MarkStart + "Needle_case" + store.MarkEnd; q != `"sits here" OR nothing` && !strings.Contains(hits[0].Snippet, want) {
			t.Errorf("%s: snippet %q lacks %q", q, hits[0].Snippet, want)
		}
		if q == `"sits here" OR nothing` && !strings.Contains(hits[0].Snippet, store.MarkStart+"sits"+store.MarkEnd) {
			t.Errorf("%s: snippet %q", q, hits[0].Snippet)
		}
	}
}
