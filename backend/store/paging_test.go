package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// longSession appends n rows (whole turns: user, a tool call, its result, an answer) to a new
// session, with a compaction summary after every `every` rows (none when every is 0) as a
// long-lived session has, through the store's Append like a run. It returns the session's id.
func longSession(tb testing.TB, db *store.DB, n, every int) string {
	tb.Helper()
	ctx := context.Background()
	s, err := db.CreateSession(ctx, store.NewSession{Title: fmt.Sprintf("%d rows", n), Workspace: "/w", Model: "m"})
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, uint64(n)))
	var batch []store.NewChunk
	var seq, sinceSummary int64
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := db.Append(ctx, s.ID, fmt.Sprintf("run-%d", seq/1000), batch...); err != nil {
			tb.Fatal(err)
		}
		batch = batch[:0]
	}
	for k := 0; seq < int64(n); k++ {
		if every > 0 && sinceSummary >= int64(every) && seq+1 < int64(n) {
			batch = append(batch, store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{
				Text: "summary of the work so far: " + sentence(r, 60), ThroughSeq: seq}})
			seq, sinceSummary = seq+1, 0
			continue
		}
		rows := turn(r, k)
		if int64(len(rows)) > int64(n)-seq {
			rows = []store.NewChunk{user(sentence(r, 10))} // the last few rows: messages
		}
		batch = append(batch, rows...)
		seq, sinceSummary = seq+int64(len(rows)), sinceSummary+int64(len(rows))
		if len(batch) >= 2000 {
			flush()
		}
	}
	flush()
	return s.ID
}

func TestPagesOfALongSessionReadOnlyTheirRows(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	id := longSession(t, db, 5000, 0)

	before := db.RowsRead()
	tail, span, err := db.ChunksTail(ctx, id, 50)
	if err != nil {
		t.Fatal(err)
	}
	if read := db.RowsRead() - before; read != 50 {
		t.Fatalf("the last 50 rows read %d rows", read)
	}
	if span != (store.Span{FirstSeq: 1, LastSeq: 5000, Count: 5000}) || len(tail) != 50 || tail[0].Seq != 4951 || tail[49].Seq != 5000 {
		t.Fatalf("tail: %d rows from %d, span %+v", len(tail), tail[0].Seq, span)
	}
	page, err := db.ChunksBefore(ctx, id, tail[0].Seq, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 100 || page[0].Seq != 4851 || page[99].Seq != 4950 {
		t.Fatalf("the page before: %d rows %d..%d", len(page), page[0].Seq, page[len(page)-1].Seq)
	}
	if first, _ := db.ChunksBefore(ctx, id, 3, 100); len(first) != 2 || first[0].Seq != 1 {
		t.Fatalf("the page before row 3: %+v", first)
	}
	around, err := db.ChunksAround(ctx, id, 2500, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(around) != 20 || around[0].Seq != 2490 || around[19].Seq != 2509 {
		t.Fatalf("around 2500: %d rows %d..%d", len(around), around[0].Seq, around[len(around)-1].Seq)
	}
	// Near the end there are fewer rows after: the page takes more from before.
	if end, _ := db.ChunksAround(ctx, id, 4998, 20); len(end) != 20 || end[19].Seq != 5000 || end[0].Seq != 4981 {
		t.Fatalf("around 4998: %d rows from %d", len(end), end[0].Seq)
	}
	all, span, err := db.ChunksTail(ctx, id, 0)
	if err != nil || len(all) != 5000 || span.Count != 5000 {
		t.Fatalf("every row: %d %+v %v", len(all), span, err)
	}

	results, err := db.SeqsOfKind(ctx, id, store.KindToolResult)
	if err != nil || len(results) != 1250 || results[0] != 3 || results[1249] != 4999 {
		t.Fatalf("the tool results: %d from %v, %v", len(results), results[:min(len(results), 2)], err)
	}

	empty := mustSession(t, db, "empty")
	if rows, span, err := db.ChunksTail(ctx, empty.ID, 50); err != nil || len(rows) != 0 || span != (store.Span{}) {
		t.Fatalf("an empty session: %v %+v %v", rows, span, err)
	}
	for name, err := range map[string]error{
		"tail":   func() error { _, _, err := db.ChunksTail(ctx, "nope", 5); return err }(),
		"before": func() error { _, err := db.ChunksBefore(ctx, "nope", 5, 5); return err }(),
		"around": func() error { _, err := db.ChunksAround(ctx, "nope", 5, 5); return err }(),
		"next":   func() error { _, err := db.RequestRows(ctx, "nope"); return err }(),
		"kind":   func() error { _, err := db.SeqsOfKind(ctx, "nope", store.KindUser); return err }(),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of no session: %v, want ErrNotFound", name, err)
		}
	}
}

// The next request built from the rows since the last compaction is the request built from
// every row, message for message, whatever summaries, set-asides, undos and system rows lie
// along the session.
func TestRequestRowsMakeTheSameRequestAsEveryRow(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "long")
	summary := func(text string, through, from, undoes int64) store.NewChunk {
		return store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: text, ThroughSeq: through, FromSeq: from, Undoes: undoes}}
	}
	system := store.NewChunk{Kind: store.KindSystem, Payload: store.SystemPayload{Text: "be brief"}}
	r := rand.New(rand.NewPCG(1, 2))
	turns := func(k int) {
		for i := range k {
			mustAppend(t, db, s.ID, "r", turn(r, i)...)
		}
	}
	check := func(what string, wantRead int) {
		t.Helper()
		all, err := db.Chunks(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		before := db.RowsRead()
		some, err := db.RequestRows(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		summaries := 0 // read to find the compaction in effect, then left out when superseded
		for _, c := range all {
			if c.Kind == store.KindSummary {
				summaries++
			}
		}
		if read := db.RowsRead() - before; read < int64(len(some)) || read > int64(len(some)+summaries) || (wantRead > 0 && len(some) != wantRead) {
			t.Errorf("%s: read %d rows for %d of %d, want %d", what, read, len(some), len(all), wantRead)
		}
		want, err := store.Messages(all)
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.Messages(some)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the request from %d rows differs from the one from all %d:\n%s\nwant\n%s", what, len(some), len(all), got, want)
		}
		ge, _ := store.EstimateContext(some, "sys")
		we, _ := store.EstimateContext(all, "sys")
		gf, _ := store.FoldsOf(some)
		wf, _ := store.FoldsOf(all)
		if ge != we || gf.Compaction != wf.Compaction {
			t.Fatalf("%s: estimate %d folds %+v, want %d %+v", what, ge, gf, we, wf)
		}
	}
	turns(5) // rows 1..20
	check("no compaction: every row", 20)
	mustAppend(t, db, s.ID, "r", system) // 21
	turns(5)                             // 22..41
	mustAppend(t, db, s.ID, "r", summary("first summary", 41, 0, 0))
	turns(5) // 43..62
	// The system row and the summary before the cut, the first row it replaced, the rest.
	check("after a compaction", 3+20)
	mustAppend(t, db, s.ID, "r", system)                               // 63
	mustAppend(t, db, s.ID, "r", summary("second summary", 62, 0, 0))  // 64
	turns(3)                                                           // 65..76
	mustAppend(t, db, s.ID, "r", summary("set aside", 72, 69, 0))      // 77
	turns(2)                                                           // 78..85
	check("a second compaction and a set-aside", 1+1+23)               // the first summary superseded
	mustAppend(t, db, s.ID, "r", summary("second summary", 62, 0, 64)) // 86: undo the second
	turns(1)
	check("the second compaction undone", 0)
	mustAppend(t, db, s.ID, "r", summary("first summary", 41, 0, 42)) // undo the first too
	check("every compaction undone", 0)
}

// The paged reads use the session's index with a LIMIT, and the rows the next request needs
// besides the last ones come from the partial index of summary and system rows: no query
// scans the session.
func TestPagedReadsUseTheIndexes(t *testing.T) {
	db, _ := openTemp(t)
	for _, q := range []struct{ sql, want string }{
		{`SELECT seq FROM chunks WHERE session_id = 's' AND seq < 9 ORDER BY seq DESC LIMIT 5`, "sqlite_autoindex_chunks_1 (session_id=? AND seq<?)"},
		{`SELECT seq FROM chunks WHERE session_id = 's' AND seq >= 9 ORDER BY seq LIMIT 5`, "sqlite_autoindex_chunks_1 (session_id=? AND seq>?)"},
		{`SELECT seq FROM chunks WHERE session_id = 's' AND kind IN ('summary', 'system') ORDER BY seq`, "chunks_folds (session_id=?)"},
		{`SELECT min(seq) FROM chunks WHERE session_id = 's'`, "sqlite_autoindex_chunks_1"},
		// The chunk table filtered by kind and the last reply: the kind's index entries only.
		{`SELECT seq FROM chunks WHERE session_id = 's' AND kind = 'tool_result' ORDER BY seq`, "COVERING INDEX chunks_kind (session_id=? AND kind=?)"},
		{`SELECT seq FROM chunks WHERE session_id = 's' AND kind = 'assistant' AND run_id <> '' ORDER BY seq DESC LIMIT 1`, "chunks_kind (session_id=? AND kind=?)"},
		{`SELECT seq FROM chunks WHERE session_id = 's' AND kind IN ('summary', 'system') AND kind = 'summary' ORDER BY seq`, "(session_id=?"},
		{`SELECT seq FROM chunks INDEXED BY chunks_run WHERE run_id = 'r' AND session_id = 's' AND kind IN ('assistant', 'usage', 'summary') AND kind = 'assistant'`,
			"chunks_run (run_id=? AND session_id=?)"},
	} {
		rows, err := db.SQL().Query(`EXPLAIN QUERY PLAN ` + q.sql)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, q.want) {
			t.Errorf("%s\nplan %q, want it to use %s", q.sql, p, q.want)
		}
	}
}
