package loop_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
	_ "github.com/mattn/go-sqlite3"
)

// BenchmarkRunnerTurn measures the runner's cost per turn against an instant fake server: runs
// of 4 tool turns (one auto-approved read-only call each, so each turn stores its assistant
// row, an approval row and a tool result) plus a final answer, with the session's run row
// opened and closed. In the same loop it times the bare baseline the issue names: per turn,
// one loopback HTTP round trip (the same streamed reply, read line by line) plus one durable
// SQLite commit on a database opened with the store's settings (WAL, synchronous=FULL).
//
// x_vs_bare is runner time / bare time. x_vs_bare_same_writes compares instead with a bare
// loop making as many durable commits as the runner must (the store's contract is one
// transaction per logical step). The *_ns/turn metrics split the runner's time: inside the
// store, inside the model client, and its own (core, bus, message rebuild, tool dispatch,
// goroutine hand-offs; tool execution excluded).
func BenchmarkRunnerTurn(b *testing.B) {
	const toolTurns = 4
	const turns = toolTurns + 1
	srv, err := fakeai.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dir := b.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "runner.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	// The baseline: the same SQLite settings as store.Open (WAL, synchronous=FULL, immediate
	// transactions), opened bare.
	bareDB, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "bare.db")+
		"?_journal_mode=WAL&_synchronous=FULL&_foreign_keys=on&_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer bareDB.Close()
	if _, err := bareDB.ExecContext(ctx, `CREATE TABLE bench(id INTEGER PRIMARY KEY, payload TEXT)`); err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	var replies []fakeai.Reply
	for i := range toolTurns {
		d := fmt.Sprintf("d%d", i)
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			b.Fatal(err)
		}
		replies = append(replies, fakeai.ToolCalls(fakeai.Call{ID: "c" + d, Name: "list_dir", Arguments: `{"path":"` + d + `"}`}).WithUsage(100, 10, 0))
	}
	replies = append(replies, fakeai.Text("All four folders are empty.").WithUsage(200, 10, 0))

	reg, err := tools.NewRegistry(tools.Builtins()...)
	if err != nil {
		b.Fatal(err)
	}
	clock := &ioClock{}
	runner := loop.New(loop.Config{Store: timedStore{db, clock}, Approver: tools.NewApprover(nil),
		Tools: timedTools{reg, clock}, Workspaces: tools.NewManager(),
		Model: timedModel{provider.New(provider.Config{BaseURL: srv.URL(), APIKey: "k", Model: "fake-model", MaxRetries: -1}), clock}})
	defer runner.Close()

	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	body := []byte(`{"model":"fake-model","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"list the folders"}]}`)
	post := func(r fakeai.Reply) {
		srv.Enqueue(r)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
		}
		res.Body.Close()
	}
	commit := func() {
		tx, err := bareDB.BeginTx(ctx, nil)
		if err == nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO bench(payload) VALUES (?)`, `{"text":"","tool_calls":[{"id":"c","name":"list_dir","arguments":"{}"}]}`)
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	var writes int // durable commits the runner makes per run, counted from the rows and the run row
	newSession := func() string {
		s, err := db.CreateSession(ctx, store.NewSession{Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		return s.ID
	}
	runOnce := func(sessionID string) {
		srv.Reset()
		srv.Enqueue(replies...)
		id, err := runner.Start(ctx, loop.RunSpec{SessionID: sessionID, Prompt: "list the folders", Model: "fake-model", Mode: tools.ModeAuto})
		if err != nil {
			b.Fatal(err)
		}
		res, err := runner.Wait(ctx, id)
		if err != nil || res.Status != core.StopCompleted || res.Turns != turns {
			b.Fatalf("run: %+v %v", res, err)
		}
		if writes == 0 {
			writes = clock.takeCommits() // the first run's, counted at the store
		}
	}
	clock.takeCommits()
	runOnce(newSession()) // warm up both paths
	srv.Reset()
	post(replies[0])
	commit()

	// Each iteration is one pair, a run and its bare twin, alternating which goes first so
	// neither always finds the caches the other warmed; the ratios reported are medians over
	// the pairs, so a load spike from other processes moves a few pairs only.
	bare := func() (base, extra time.Duration) {
		t0 := time.Now()
		srv.Reset()
		for _, r := range replies {
			post(r)
			commit()
		}
		t1 := time.Now()
		for range writes - turns {
			commit()
		}
		return t1.Sub(t0), time.Since(t1)
	}
	var ratios, ratiosSame []float64
	var runnerDur, bareDur time.Duration
	clock.reset()
	b.ResetTimer()
	for i := range b.N {
		var base, extra time.Duration
		if i%2 == 0 {
			base, extra = bare()
		}
		b.StopTimer()
		sid := newSession() // not measured: a run starts on an existing session
		b.StartTimer()
		t := time.Now()
		runOnce(sid)
		rd := time.Since(t)
		if i%2 == 1 {
			base, extra = bare()
		}
		ratios = append(ratios, float64(rd)/float64(base))
		ratiosSame = append(ratiosSame, float64(rd)/float64(base+extra))
		runnerDur += rd
		bareDur += base
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*turns) }
	b.ReportMetric(median(ratios), "x_vs_bare")
	b.ReportMetric(median(ratiosSame), "x_vs_bare_same_writes")
	b.ReportMetric(per(runnerDur), "runner_ns/turn")
	b.ReportMetric(per(bareDur), "bare_ns/turn")
	b.ReportMetric(float64(writes)/turns, "commits/turn")
	b.ReportMetric(per(clock.store), "store_ns/turn")
	b.ReportMetric(per(clock.model), "model_ns/turn")
	b.ReportMetric(per(runnerDur-clock.store-clock.model-clock.tools), "own_ns/turn")
}

// ioClock sums the time the runner spends inside its collaborators, so the benchmark can
// report what is left: the runner's own work (core, bus, goroutine hand-offs, conversions).
type ioClock struct {
	mu                  sync.Mutex
	store, model, tools time.Duration
	commits             int // store calls that commit a transaction
}

func (c *ioClock) commit() {
	c.mu.Lock()
	c.commits++
	c.mu.Unlock()
}

func (c *ioClock) takeCommits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.commits
	c.commits = 0
	return n
}

func (c *ioClock) add(d *time.Duration, since time.Time) {
	c.mu.Lock()
	*d += time.Since(since)
	c.mu.Unlock()
}

func (c *ioClock) reset() {
	c.mu.Lock()
	c.store, c.model, c.tools = 0, 0, 0
	c.mu.Unlock()
}

type timedStore struct {
	*store.DB
	c *ioClock
}

func (s timedStore) GetSession(ctx context.Context, id string) (store.Session, error) {
	defer s.c.add(&s.c.store, time.Now())
	return s.DB.GetSession(ctx, id)
}

func (s timedStore) Chunks(ctx context.Context, id string) ([]store.Chunk, error) {
	defer s.c.add(&s.c.store, time.Now())
	return s.DB.Chunks(ctx, id)
}

func (s timedStore) Append(ctx context.Context, sid, rid string, cs ...store.NewChunk) ([]store.Chunk, error) {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.Append(ctx, sid, rid, cs...)
}

func (s timedStore) StartRun(ctx context.Context, n store.NewRun) (store.Run, error) {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.StartRun(ctx, n)
}

func (s timedStore) StartRunWith(ctx context.Context, n store.NewRun, cs ...store.NewChunk) (store.Run, []store.Chunk, error) {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.StartRunWith(ctx, n, cs...)
}

func (s timedStore) CheckIdle(ctx context.Context, sid string) error {
	defer s.c.add(&s.c.store, time.Now())
	return s.DB.CheckIdle(ctx, sid)
}

func (s timedStore) FinishRun(ctx context.Context, id string, r store.RunResult) (store.Run, []store.Chunk, error) {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.FinishRun(ctx, id, r)
}

func (s timedStore) AppendAndFinish(ctx context.Context, sid, rid string, r store.RunResult, cs ...store.NewChunk) (store.Run, []store.Chunk, []store.Chunk, error) {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.AppendAndFinish(ctx, sid, rid, r, cs...)
}

func (s timedStore) Enqueue(ctx context.Context, sid string, m store.QueuedMessage) error {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.Enqueue(ctx, sid, m)
}

func (s timedStore) Dequeue(ctx context.Context, sid, id string) (bool, error) {
	defer s.c.add(&s.c.store, time.Now())
	s.c.commit()
	return s.DB.Dequeue(ctx, sid, id)
}

type timedModel struct {
	m loop.Model
	c *ioClock
}

func (m timedModel) Stream(ctx context.Context, r provider.Request, h provider.Handler) provider.Response {
	defer m.c.add(&m.c.model, time.Now())
	return m.m.Stream(ctx, r, h)
}

type timedTools struct {
	r *tools.Registry
	c *ioClock
}

func (t timedTools) Specs() []tools.Spec { return t.r.Specs() }

func (t timedTools) Run(ctx context.Context, ws *tools.Workspace, call tools.Call, out func(string)) tools.Result {
	defer t.c.add(&t.c.tools, time.Now())
	return t.r.Run(ctx, ws, call, out)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
