package historybench

// Each benchmark reports a ratio against its baseline in the same run (x_big_vs_small: the
// 100,000-row session against a 20-row one; x_vs_bare: Loopdesk against the same query in raw
// SQLite), median of interleaved pairs so a spike of the machine hits one pair, not the figure.
// Figures: docs/benchmarks.md ("History at any size").

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	_ "github.com/mattn/go-sqlite3" // the bare side's driver, the one the store uses
)

const (
	bigRows   = 100_000
	sessions  = 1_000
	smallRows = 20
)

// journal is the database every benchmark of a process shares: built once.
type journal struct {
	path       string
	ws         string // the sessions' folder
	db         *store.DB
	big, small string
	// tail holds as many rows as the big session's last compaction left to send, with no
	// history before them: continuing either should cost the same.
	tail     string
	tailRows int64
}

var (
	journalOnce sync.Once
	shared      journal
	journalErr  error
)

func TestMain(m *testing.M) {
	// Each start of the window's services says another one holds the inbox socket: that
	// line would break the benchmark's result lines.
	log.SetOutput(io.Discard)
	code := m.Run()
	if shared.db != nil {
		shared.db.Close()
		os.RemoveAll(filepath.Dir(shared.path))
	}
	os.Exit(code)
}

// theJournal is the bench journal (journal.go), built once and kept in build/bench-journal
// between runs, copied for this process: the benchmarks write to it.
func theJournal(b *testing.B) journal {
	journalOnce.Do(func() {
		j, err := Cached(context.Background(), filepath.Join("..", "..", "build", "bench-journal"), Full)
		if journalErr = err; err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "loopdesk-history-bench-")
		if journalErr = err; err != nil {
			return
		}
		if j, journalErr = j.CopyTo(dir); journalErr != nil {
			return
		}
		shared = journal{path: j.Path, ws: j.Workspace, big: j.Big, small: j.Small, tail: j.Tail, tailRows: j.TailRows}
		shared.db, journalErr = store.Open(context.Background(), j.Path)
	})
	if journalErr != nil {
		b.Fatal(journalErr)
	}
	return shared
}

// pairs times a and then b (alternating which goes first) reps times and reports their mean
// times under the two names and the median ratio a/b as ratio.
func pairs(b *testing.B, reps int, aName, bName, ratio string, a, bf func() error) (meanA time.Duration) {
	b.Helper()
	run := func(f func() error) time.Duration {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var ta, tb time.Duration
	var ratios []float64
	for i := 0; i < b.N*reps; i++ {
		var x, y time.Duration
		if i%2 == 0 {
			x, y = run(a), run(bf)
		} else {
			y, x = run(bf), run(a)
		}
		ta, tb, ratios = ta+x, tb+y, append(ratios, float64(x)/float64(y))
	}
	slices.Sort(ratios)
	n := time.Duration(b.N * reps)
	b.ReportMetric(float64(ta/n)/1e6, aName)
	b.ReportMetric(float64(tb/n)/1e6, bName)
	b.ReportMetric(ratios[len(ratios)/2], ratio)
	return ta / n
}

// BenchmarkHistoryOpen: the window opening the 100,000-row session (its last 200 rows, the
// meters, runs, totals: Sessions.OpenSessionTail) against opening a 20-row one, and against a
// session holding only as many rows as the big one's last compaction left
// (x_big_vs_same_tail: what the history before costs). rows_read is what one open of the big
// session read from chunks.
func BenchmarkHistoryOpen(b *testing.B) {
	j := theJournal(b)
	dir := b.TempDir()
	svc, err := desktop.New(j.db, config.Keys{Dir: filepath.Join(dir, "config"), Getenv: func(string) string { return "" }}, nilDialogs{},
		filepath.Join(dir, "config", "mcp.json"))
	if err != nil {
		b.Fatal(err)
	}
	svc.Startup(context.Background(), func(string, any) {})
	defer svc.Shutdown()
	open := func(id string, want int64) func() error {
		return func() error {
			v, err := svc.Sessions.OpenSessionTail(id, 200)
			// At least want: BenchmarkHistoryContinue adds two rows to a session per message.
			if err == nil && (v.RowCount < want || len(v.Rows) != int(min(v.RowCount, 200))) {
				err = fmt.Errorf("opened %d of %d rows, want the last 200 of at least %d", len(v.Rows), v.RowCount, want)
			}
			return err
		}
	}
	before := j.db.RowsRead()
	if err := open(j.big, bigRows)(); err != nil {
		b.Fatal(err)
	}
	read := j.db.RowsRead() - before
	b.ResetTimer()
	pairs(b, 20, "big_ms/open", "small_ms/open", "x_big_vs_small", open(j.big, bigRows), open(j.small, smallRows))
	pairs(b, 20, "big_ms/open2", "same_tail_ms/open", "x_big_vs_same_tail", open(j.big, bigRows), open(j.tail, j.tailRows))
	b.ReportMetric(float64(read), "rows_read/open")
}

type nilDialogs struct{}

func (nilDialogs) ChooseFolder(string) (string, error)     { return "", nil }
func (nilDialogs) SaveFile(string, string) (string, error) { return "", nil }
func (nilDialogs) OpenFile(string) (string, error)         { return "", nil }

// BenchmarkHistoryNextRequest: what a run does before its first request leaves, in a process
// that has not held the session yet: the rows the request is built from (through the
// requests' cache, as the runner reads them), the messages derived from them, the context
// estimate and what the loop core is told of them, for the 100,000-row session (compacted
// every 400 rows) against a 20-row one, and against a session holding only as many rows as
// the big one's last compaction left (x_big_vs_same_tail: what the history before costs).
func BenchmarkHistoryNextRequest(b *testing.B) {
	j := theJournal(b)
	ctx := context.Background()
	client := provider.New(provider.Config{Name: "default", Model: "m"})
	build := func(id string) func() error {
		return func() error {
			var caches store.RequestCaches // a fresh process: nothing held
			rc := caches.Take(id)
			rows, err := rc.Rows(ctx, j.db, id)
			if err != nil {
				return err
			}
			msgs, err := rc.Turns(rows)
			if err == nil && len(msgs) == 0 {
				err = fmt.Errorf("no messages")
			}
			if err != nil {
				return err
			}
			if _, err := rc.Estimate(rows, "the system prompt"); err != nil {
				return err
			}
			if _, err = store.RowRefs(rows); err != nil {
				return err
			}
			_, err = client.Prepare(provider.Request{Model: "m", System: "the system prompt", Messages: msgs, Cache: &rc.Enc})
			return err
		}
	}
	before := j.db.RowsRead()
	if err := build(j.big)(); err != nil {
		b.Fatal(err)
	}
	read := j.db.RowsRead() - before
	b.ResetTimer()
	pairs(b, 20, "big_ms/request", "small_ms/request", "x_big_vs_small", build(j.big), build(j.small))
	pairs(b, 20, "big_ms/request2", "same_tail_ms/request", "x_big_vs_same_tail", build(j.big), build(j.tail))
	b.ReportMetric(float64(read), "rows_read/request")
}

// BenchmarkHistoryContinue: a message sent to the 100,000-row session in a window just
// started (nothing of the session held yet), from SendMessage to the request arriving at the
// fake model (fakeai's Timings), against the same in the 20-row session and in the session
// holding only the big one's last stretch. Each pair starts the window's services afresh.
func BenchmarkHistoryContinue(b *testing.B) {
	j := theJournal(b)
	ctx := context.Background()
	srv, err := fakeai.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dir := b.TempDir()
	keys := config.Keys{Dir: filepath.Join(dir, "config"), Getenv: func(string) string { return "" }}
	finished := make(chan string, 16)
	start := func() *desktop.Services {
		svc, err := desktop.New(j.db, keys, nilDialogs{}, filepath.Join(dir, "config", "mcp.json"))
		if err != nil {
			b.Fatal(err)
		}
		svc.Startup(ctx, func(_ string, data any) {
			if bs, _ := json.Marshal(data); bytes.Contains(bs, []byte(`"run_finished"`)) {
				finished <- string(bs)
			}
		})
		return svc
	}
	svc := start()
	if _, err := svc.Settings.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-bench"}); err != nil {
		b.Fatal(err)
	}
	svc.Shutdown()
	send := func(svc *desktop.Services, id string) float64 {
		srv.Enqueue(fakeai.Text("noted"))
		n := len(srv.Timings())
		t0 := float64(time.Now().UnixNano()) / 1e6
		runID, err := svc.Chat.SendMessage(id, "go on")
		if err != nil {
			b.Fatal(err)
		}
		for ev := range finished {
			if strings.Contains(ev, runID) {
				break
			}
		}
		ts := srv.Timings()
		if len(ts) != n+1 {
			b.Fatalf("%d requests reached the model, want 1", len(ts)-n)
		}
		return ts[n].Started - t0
	}
	var big, small, tail, ratios, tailRatios []float64
	for i := 0; i < b.N*6; i++ {
		svc := start()
		ids := []string{j.big, j.small, j.tail}
		if i%2 == 1 {
			slices.Reverse(ids)
		}
		got := map[string]float64{}
		for _, id := range ids {
			got[id] = send(svc, id)
		}
		svc.Shutdown()
		big, small, tail = append(big, got[j.big]), append(small, got[j.small]), append(tail, got[j.tail])
		ratios, tailRatios = append(ratios, got[j.big]/got[j.small]), append(tailRatios, got[j.big]/got[j.tail])
	}
	med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
	b.ReportMetric(med(big), "big_ms/request")
	b.ReportMetric(med(small), "small_ms/request")
	b.ReportMetric(med(tail), "same_tail_ms/request")
	b.ReportMetric(med(ratios), "x_big_vs_small")
	b.ReportMetric(med(tailRatios), "x_big_vs_same_tail")
}

// BenchmarkHistorySearch: the first page of a full-text search over the whole journal
// (Search, 50 hits with snippets and titles) against the FTS query alone in raw SQLite (the
// same MATCH ranked, 50 rowids).
func BenchmarkHistorySearch(b *testing.B) {
	j := theJournal(b)
	ctx := context.Background()
	queries := []string{"zebra", "session search", `"commit rollback"`, "sym*", "crash OR repair"}
	for _, q := range queries {
		if _, err := j.db.Search(ctx, q, 50); err != nil { // the backlog indexed before timing
			b.Fatal(err)
		}
	}
	k := 0
	next := func() string { q := queries[(k/2)%len(queries)]; k++; return q } // both sides of a pair: one query
	b.ResetTimer()
	pairs(b, 10, "store_ms/search", "bare_ms/search", "x_vs_bare", func() error {
		hits, err := j.db.Search(ctx, next(), 50)
		if err == nil && len(hits) == 0 {
			err = fmt.Errorf("no hits")
		}
		return err
	}, func() error {
		return scanAll(j.db.SQL().QueryContext(ctx, `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 50`, next()))
	})
}

// BenchmarkHistoryList: `loopdesk sessions list --json` over the 1,000 sessions, run in this
// process (its start-up aside: that is the --version row), against the same work in raw
// SQLite: open the file, run the listing query (the sessions not archived, newest first, with
// their runs' totals) and write each row as a line of JSON, as `sqlite3 -json` would.
func BenchmarkHistoryList(b *testing.B) {
	j := theJournal(b)
	ctx := context.Background()
	b.ResetTimer()
	pairs(b, 10, "cli_ms/list", "bare_ms/list", "x_vs_bare", func() error {
		var out, errs bytes.Buffer
		if code := cli.Sessions(ctx, []string{"list", "--json", "--db", j.path}, &out, &errs); code != 0 {
			return fmt.Errorf("sessions list: %d %s", code, errs.String())
		}
		if n := bytes.Count(out.Bytes(), []byte("\n")); n != sessions {
			return fmt.Errorf("listed %d sessions", n)
		}
		return nil
	}, func() error {
		db, err := sql.Open("sqlite3", j.path)
		if err != nil {
			return err
		}
		defer db.Close()
		var out bytes.Buffer
		n, err := jsonLines(&out, db, `SELECT s.*, t.* FROM sessions s LEFT JOIN (SELECT session_id, count(*) AS runs, sum(turns), sum(tool_calls),
			sum(input_tokens), sum(output_tokens), sum(cost_usd), sum(cache_read_tokens), sum(cache_write_tokens) FROM runs GROUP BY session_id) t
			ON t.session_id = s.id WHERE s.archived = 0 ORDER BY s.updated_at DESC`)
		if err == nil && n != sessions {
			err = fmt.Errorf("listed %d sessions", n)
		}
		return err
	})
}

// jsonLines writes each row of a query as a JSON object on a line and returns how many.
func jsonLines(w io.Writer, db *sql.DB, query string) (int, error) {
	enc, n := json.NewEncoder(w), 0
	err := eachRow(db.Query(query))(func(cols []string, vals []any) error {
		line := make(map[string]any, len(cols))
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok {
				vals[i] = string(b)
			}
			line[c] = vals[i]
		}
		n++
		return enc.Encode(line)
	})
	return n, err
}

// scanAll reads every row of a query, as a caller would.
func scanAll(rows *sql.Rows, err error) error {
	return eachRow(rows, err)(func([]string, []any) error { return nil })
}

// eachRow scans every row of a query into generic values and hands them to fn.
func eachRow(rows *sql.Rows, err error) func(fn func(cols []string, vals []any) error) error {
	return func(fn func(cols []string, vals []any) error) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			if err := fn(cols, vals); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}
