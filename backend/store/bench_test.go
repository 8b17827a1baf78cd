package store_test

// Benchmarks: each measures the store against the bare SQL doing the same
// work, interleaved in the same run on the same file, and reports the ratio
// as x_vs_bare (store time / bare time; 1.0 = no overhead; for load, fork
// and search the median of per-pair ratios). `make bench`
// runs them with -benchtime=1x, so each iteration does enough work on its own
// for a stable ratio. Figures: docs/benchmarks.md.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// benchDir holds fixtures shared by benchmark runs (b.N grows, the 100,000
// row database is built once); TestMain removes it.
var (
	benchDirOnce sync.Once
	benchDirPath string
)

func benchDir(b *testing.B) string {
	benchDirOnce.Do(func() {
		d, err := os.MkdirTemp("", "loopdesk-store-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDirPath = d
	})
	return benchDirPath
}

func cleanBenchDir() {
	if benchDirPath != "" {
		os.RemoveAll(benchDirPath)
	}
}

var words = strings.Fields(`the a to of and in is it for on that with as this file test go build error function
	return value module package import struct interface method string int slice map channel goroutine context
	deadline cancel timeout retry flaky integration unit bench profile memory allocation pointer receiver
	database sqlite query index table row column migration schema transaction commit rollback journal wal
	fork session search snippet highlight rank token budget cost model prompt cache approval deny allow
	workspace folder path symlink glob grep shell command process signal kill restart crash repair zebra`)

// sentence builds text with a skewed word distribution, so common words hit
// many rows and rare ones few, as in real transcripts.
func sentence(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		k := int(float64(len(words)) * r.Float64() * r.Float64()) // skewed to the front
		sb.WriteString(words[k])
	}
	return sb.String()
}

// turn returns one realistic agent step cycle: user, assistant with a
// call, its result, final answer (4 rows, about 1 KiB).
func turn(r *rand.Rand, i int) []store.NewChunk {
	id := fmt.Sprintf("call_%d", i)
	return []store.NewChunk{
		user(sentence(r, 20)),
		assistant(sentence(r, 15), call(id, "search_text", fmt.Sprintf(`{"pattern":%q}`, sentence(r, 2)))),
		result(id, "search_text", sentence(r, 80)),
		assistant(sentence(r, 40)),
	}
}

func benchOpen(b *testing.B, path string) *store.DB {
	db, err := store.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// payloadJSON is what the store writes for c: the bare side inserts the
// same bytes.
func payloadJSON(b *testing.B, c store.NewChunk) string {
	j, err := json.Marshal(c.Payload)
	if err != nil {
		b.Fatal(err)
	}
	return string(j)
}

// bareAppend is the minimum SQL for one durable append: insert the row and
// bump the session, in one transaction.
func bareAppend(ctx context.Context, db *sql.DB, session string, seq int64, kind store.Kind, payload string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks(session_id, seq, kind, payload, run_id, created_at) VALUES (?, ?, ?, ?, 'r', ?)`,
		session, seq, string(kind), payload, now); err != nil {
		tx.Rollback()
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ?`, seq, now, session); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// timePair times one store call and its bare twin back to back, the store
// first on even k and the bare SQL first on odd k, so neither side always
// gets the caches the other warmed.
func timePair(b *testing.B, k int, storeFn, bareFn func() error) (st, bt time.Duration) {
	run := func(f func() error) time.Duration {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	if k%2 == 0 {
		st = run(storeFn)
		bt = run(bareFn)
	} else {
		bt = run(bareFn)
		st = run(storeFn)
	}
	return st, bt
}

// median of per-pair ratios: a load spike from other processes on the
// machine hits one pair instead of skewing a total.
func median(r []float64) float64 {
	s := slices.Clone(r)
	slices.Sort(s)
	return s[len(s)/2]
}

func sum(d []time.Duration) (t time.Duration) {
	for _, x := range d {
		t += x
	}
	return t
}

// BenchmarkAppend: one durable append (one transaction, fsync) per row, vs
// the bare INSERT + UPDATE in a transaction. Reports throughput ratio and
// p99 ratio.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	db := benchOpen(b, filepath.Join(b.TempDir(), "append.db"))
	defer db.Close()
	r := rand.New(rand.NewPCG(1, 2))
	const rounds = 100 // turns per iteration: 400 appends each side
	var storeT, bareT []time.Duration
	for i := 0; i < b.N; i++ {
		s, _ := db.CreateSession(ctx, store.NewSession{Title: "store"})
		bare, _ := db.CreateSession(ctx, store.NewSession{Title: "bare"})
		var seq int64
		for k := 0; k < rounds; k++ {
			for j, c := range turn(r, k) {
				seq++
				st, bt := timePair(b, k+j, func() error {
					_, err := db.Append(ctx, s.ID, "r", c)
					return err
				}, func() error {
					return bareAppend(ctx, db.SQL(), bare.ID, seq, c.Kind, payloadJSON(b, c))
				})
				storeT, bareT = append(storeT, st), append(bareT, bt)
			}
		}
	}
	b.ReportMetric(float64(sum(storeT))/float64(len(storeT)), "store_ns/append")
	b.ReportMetric(float64(sum(bareT))/float64(len(bareT)), "bare_ns/append")
	b.ReportMetric(float64(sum(storeT))/float64(sum(bareT)), "x_vs_bare")
	b.ReportMetric(float64(p99(storeT)), "store_p99_ns")
	b.ReportMetric(float64(p99(storeT))/float64(p99(bareT)), "p99_x_vs_bare")
	b.ReportMetric(float64(len(storeT))/sum(storeT).Seconds(), "appends/s")
}

// BenchmarkAppendSyncNormal prices the synchronous=FULL choice: the store's
// append vs the bare append on a connection with synchronous=NORMAL (which
// would also survive a process kill, but not power loss). x_vs_bare here is
// the cost of the extra fsync per commit.
func BenchmarkAppendSyncNormal(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "sync.db")
	db := benchOpen(b, path)
	defer db.Close()
	normal, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer normal.Close()
	r := rand.New(rand.NewPCG(7, 8))
	var storeT, bareT time.Duration
	for i := 0; i < b.N; i++ {
		s, _ := db.CreateSession(ctx, store.NewSession{Title: "full"})
		bare, _ := db.CreateSession(ctx, store.NewSession{Title: "normal"})
		var seq int64
		for k := 0; k < 50; k++ {
			for j, c := range turn(r, k) {
				seq++
				st, bt := timePair(b, k+j, func() error {
					_, err := db.Append(ctx, s.ID, "r", c)
					return err
				}, func() error {
					return bareAppend(ctx, normal, bare.ID, seq, c.Kind, payloadJSON(b, c))
				})
				storeT, bareT = storeT+st, bareT+bt
			}
		}
	}
	n := float64(b.N * 200)
	b.ReportMetric(float64(storeT)/n, "full_ns/append")
	b.ReportMetric(float64(bareT)/n, "normal_ns/append")
	b.ReportMetric(float64(storeT)/float64(bareT), "x_vs_bare")
}

// bigSession returns a database holding one session of n rows (built once
// per path and reused).
func bigSession(b *testing.B, name string, n int) (*store.DB, string) {
	ctx := context.Background()
	path := filepath.Join(benchDir(b), name)
	_, statErr := os.Stat(path)
	db := benchOpen(b, path)
	if statErr == nil {
		list, err := db.ListSessions(ctx)
		if err == nil && len(list) > 0 {
			return db, list[len(list)-1].ID // the oldest: the original
		}
	}
	s, _ := db.CreateSession(ctx, store.NewSession{Title: "big"})
	r := rand.New(rand.NewPCG(3, 4))
	var rows []store.NewChunk
	for k := 0; len(rows) < n; k++ {
		rows = append(rows, turn(r, k)...)
	}
	if _, err := db.Append(ctx, s.ID, "r", rows[:n]...); err != nil {
		b.Fatal(err)
	}
	return db, s.ID
}

// BenchmarkLoad10k: Chunks of a 10,000-row session vs the bare SELECT
// scanning the same columns.
func BenchmarkLoad10k(b *testing.B) {
	ctx := context.Background()
	db, id := bigSession(b, "load.db", 10_000)
	defer db.Close()
	const reps = 10
	var storeT, bareT time.Duration
	var ratios []float64
	for i := 0; i < b.N; i++ {
		for k := 0; k < reps; k++ {
			st, bt := timePair(b, k, func() error {
				rows, err := db.Chunks(ctx, id)
				if err == nil && len(rows) != 10_000 {
					err = fmt.Errorf("loaded %d rows", len(rows))
				}
				return err
			}, func() error {
				n, err := bareLoad(ctx, db.SQL(), id)
				if err == nil && n != 10_000 {
					err = fmt.Errorf("loaded %d rows", n)
				}
				return err
			})
			storeT, bareT, ratios = storeT+st, bareT+bt, append(ratios, float64(st)/float64(bt))
		}
	}
	n := float64(b.N * reps)
	b.ReportMetric(float64(storeT)/n, "store_ns/load")
	b.ReportMetric(float64(bareT)/n, "bare_ns/load")
	b.ReportMetric(median(ratios), "x_vs_bare")
}

func bareLoad(ctx context.Context, db *sql.DB, id string) (int, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, kind, payload, run_id, created_at FROM chunks WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var out []store.Chunk
	for rows.Next() {
		var c store.Chunk
		var p string
		var created int64
		if err := rows.Scan(&c.Seq, &c.Kind, &p, &c.RunID, &created); err != nil {
			return 0, err
		}
		c.Payload, c.CreatedAt = json.RawMessage(p), time.UnixMilli(created)
		out = append(out, c)
	}
	return len(out), rows.Err()
}

// BenchmarkFork10k: Fork at the last row of a 10,000-row session vs the bare
// INSERT session + INSERT ... SELECT rows in one transaction, both indexing the copied rows
// for search in that transaction (since migration 0013 the index is written by a statement,
// not by a trigger on each row; a bare copy left unindexed would have the next Fork index
// it).
func BenchmarkFork10k(b *testing.B) {
	ctx := context.Background()
	db, id := bigSession(b, "fork.db", 10_000)
	defer db.Close()
	const reps = 7
	var storeT, bareT time.Duration
	var ratios []float64
	for i := 0; i < b.N; i++ {
		for k := 0; k < reps; k++ {
			st, bt := timePair(b, k, func() error {
				_, err := db.Fork(ctx, id, 10_000)
				return err
			}, func() error {
				return bareFork(ctx, db.SQL(), id, 10_000)
			})
			storeT, bareT, ratios = storeT+st, bareT+bt, append(ratios, float64(st)/float64(bt))
		}
	}
	n := float64(b.N * reps)
	b.ReportMetric(float64(storeT)/n, "store_ns/fork")
	b.ReportMetric(float64(bareT)/n, "bare_ns/fork")
	b.ReportMetric(median(ratios), "x_vs_bare")
}

func bareFork(ctx context.Context, db *sql.DB, id string, seq int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	child := fmt.Sprintf("bare-%d", time.Now().UnixNano())
	now := time.Now().UnixMilli()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, title, parent_id, fork_seq, created_at, updated_at, last_seq)
		VALUES (?, 'bare fork', ?, ?, ?, ?, ?)`, child, id, seq, now, now, seq); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks(session_id, seq, kind, payload, run_id, created_at)
		SELECT ?, seq, kind, payload, run_id, created_at FROM chunks WHERE session_id = ? AND seq <= ?`, child, id, seq); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts(rowid, body) SELECT id, body FROM chunk_text
		WHERE id > (SELECT coalesce(max(id), 0) FROM chunks_fts_docsize) ORDER BY id`); err != nil {
		return err
	}
	return tx.Commit()
}

// BenchmarkSearch100k: Search over 100,000 rows (100 sessions) vs the same
// SQL run bare, and vs a bare MATCH that returns only rowids (no snippet, no
// join): the floor any full-text search pays.
func BenchmarkSearch100k(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(benchDir(b), "search.db")
	_, statErr := os.Stat(path)
	db := benchOpen(b, path)
	defer db.Close()
	if statErr != nil {
		r := rand.New(rand.NewPCG(5, 6))
		for s := 0; s < 100; s++ {
			sess, _ := db.CreateSession(ctx, store.NewSession{Title: fmt.Sprintf("session %d", s)})
			var rows []store.NewChunk
			for k := 0; len(rows) < 1000; k++ {
				rows = append(rows, turn(r, k)...)
			}
			if _, err := db.Append(ctx, sess.ID, "r", rows...); err != nil {
				b.Fatal(err)
			}
		}
	}
	queries := []string{"zebra", "flaky integration", `"commit rollback"`, "sym*", "crash OR repair"}
	const reps = 5
	var storeT, bareT, matchT time.Duration
	var ratios, matchRatios []float64
	for i := 0; i < b.N; i++ {
		for k := 0; k < reps; k++ {
			for qi, q := range queries {
				st, bt := timePair(b, k+qi, func() error {
					hits, err := db.Search(ctx, q, 20)
					if err == nil && len(hits) == 0 {
						err = fmt.Errorf("no hits for %q", q)
					}
					return err
				}, func() error {
					return bareSearch(ctx, db.SQL(), store.SearchSQL, q)
				})
				mt, _ := timePair(b, 0, func() error {
					return bareSearch(ctx, db.SQL(), `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?`, q)
				}, func() error { return nil })
				storeT, bareT, matchT = storeT+st, bareT+bt, matchT+mt
				ratios, matchRatios = append(ratios, float64(st)/float64(bt)), append(matchRatios, float64(st)/float64(mt))
			}
		}
	}
	n := float64(b.N * reps * len(queries))
	b.ReportMetric(float64(storeT)/n, "store_ns/query")
	b.ReportMetric(float64(bareT)/n, "bare_ns/query")
	b.ReportMetric(float64(matchT)/n, "bare_match_ns/query")
	b.ReportMetric(median(ratios), "x_vs_bare")
	b.ReportMetric(median(matchRatios), "x_vs_bare_match")
}

func bareSearch(ctx context.Context, db *sql.DB, q, match string) error {
	rows, err := db.QueryContext(ctx, q, match, 20)
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
	}
	return rows.Err()
}

// BenchmarkRecentHookRuns100k: the latest hook rows of a folder (Settings -> Hooks and the
// hooks banner, at every run start and end) in a database of 100,000 rows of which 100 are
// hook rows, against the bare lookup of those rows by kind through the partial index
// chunks_hook (migration 0011): without that index the query read every row.
func BenchmarkRecentHookRuns100k(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(benchDir(b), "hookruns.db")
	_, statErr := os.Stat(path)
	db := benchOpen(b, path)
	defer db.Close()
	if statErr != nil {
		r := rand.New(rand.NewPCG(7, 8))
		for s := 0; s < 100; s++ {
			sess, _ := db.CreateSession(ctx, store.NewSession{Title: fmt.Sprintf("session %d", s), Workspace: "/w"})
			var rows []store.NewChunk
			for k := 0; len(rows) < 999; k++ {
				rows = append(rows, turn(r, k)...)
			}
			rows = append(rows[:999], store.NewChunk{Kind: store.KindHook, Payload: store.HookPayload{Event: "Stop", Command: "true", Source: "personal"}})
			if _, err := db.Append(ctx, sess.ID, "r", rows...); err != nil {
				b.Fatal(err)
			}
		}
	}
	var storeT, bareT time.Duration
	for i := 0; i < b.N; i++ {
		st, bt := timePair(b, i, func() error {
			got, err := db.RecentHookRuns(ctx, "/w", 20)
			if err == nil && len(got) != 20 {
				err = fmt.Errorf("%d hook runs, want 20", len(got))
			}
			return err
		}, func() error {
			rows, err := db.SQL().QueryContext(ctx, `SELECT payload FROM chunks WHERE kind = 'hook' ORDER BY created_at DESC LIMIT 20`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
			}
			return rows.Err()
		})
		storeT, bareT = storeT+st, bareT+bt
	}
	b.ReportMetric(float64(storeT)/float64(b.N), "store_ns/call")
	b.ReportMetric(float64(bareT)/float64(b.N), "bare_ns/call")
	b.ReportMetric(float64(storeT)/float64(bareT), "x_vs_bare")
}
