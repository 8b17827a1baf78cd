// Package journal is one run's writer of its session's rows: the one path every row of a run
// takes to the store (the persist executor), and which of them must be durable before the
// runner goes on (docs/architecture.md, "Durable commits").
//
// A Journal mirrors the session's rows: loaded once when the run opens, then extended with
// what each write returns (the run is the session's only writer while it runs), so a model
// call needs no database read. The run's row is written with the run's first rows, in one
// transaction (Store.StartRunWith). Approval rows wait for the next rows that must be
// durable (Defer). Once a batch of effects ends the run (it holds core.Done), its rows wait
// for the run's end and so do the events that report them (Hold): End writes them with the
// run's result in one transaction (Store.AppendAndFinish) and hands the events back to be
// published after the rows are stored.
//
// A Journal is owned by one goroutine, the run's owner; Rows hands workers a snapshot that
// later writes never touch.
package journal

import (
	"context"
	"slices"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Store is where a journal writes (*store.DB).
type Store interface {
	Append(ctx context.Context, sessionID, runID string, chunks ...store.NewChunk) ([]store.Chunk, error)
	StartRunWith(ctx context.Context, n store.NewRun, chunks ...store.NewChunk) (store.Run, []store.Chunk, error)
	FinishRun(ctx context.Context, runID string, res store.RunResult) (store.Run, []store.Chunk, error)
	// AppendAndFinish is Append then FinishRun in one transaction.
	AppendAndFinish(ctx context.Context, sessionID, runID string, res store.RunResult, chunks ...store.NewChunk) (store.Run, []store.Chunk, []store.Chunk, error)
}

// Journal is one run's side of its session's rows.
type Journal struct {
	db      Store
	session string
	run     string
	// rows mirrors the session's rows; refs are the core's view of those the run opened with
	// and told counts the rows the core has heard of (Unheard).
	rows []store.Chunk
	refs []core.RowRef
	told int
	// pending is the run's row until it is written, with the first rows the run stores.
	pending *store.NewRun
	// deferred are rows whose durability can wait for the next commit, in their order.
	deferred []core.Row
	// held are the events reporting the rows of the batch that ends the run, held with them
	// until End; quiet is set once a batch holds Done, holding while the current batch's
	// rows are deferred for the end.
	held           []core.Payload
	quiet, holding bool
}

// Open is the journal of a run of session sessionID, which holds rows when the run starts.
// Its error is a row the core cannot be told of.
func Open(db Store, sessionID string, rows []store.Chunk) (*Journal, error) {
	refs, err := store.RowRefs(rows)
	return &Journal{db: db, session: sessionID, rows: rows, refs: refs, told: len(rows)}, err
}

// Begin names the run: its row is written with the next rows committed. Rows committed
// before (a refused prompt's hook rows) belong to no run.
func (j *Journal) Begin(n store.NewRun) {
	j.run, j.pending = n.ID, &n
}

// Unwritten is the run's row while it is not written yet (nil after), to complete it.
func (j *Journal) Unwritten() *store.NewRun { return j.pending }

// Rows hands a worker the rows so far; later writes never touch what it covers.
func (j *Journal) Rows() []store.Chunk { return j.rows[:len(j.rows):len(j.rows)] }

// LastSeq is the seq of the last row held, 0 for none.
func (j *Journal) LastSeq() int64 {
	if len(j.rows) == 0 {
		return 0
	}
	return j.rows[len(j.rows)-1].Seq
}

// Opening is the core's view of every row held, for core.Started: the rows the run opened
// with and those stored since.
func (j *Journal) Opening() ([]core.RowRef, error) {
	more, err := j.Unheard()
	j.refs = append(j.refs, more...)
	return j.refs, err
}

// Unheard are the rows stored since the core last heard of the rows (core.Stored), none
// when there are none; they count as heard from now on.
func (j *Journal) Unheard() ([]core.RowRef, error) {
	if j.told >= len(j.rows) {
		return nil, nil
	}
	refs, err := store.RowRefs(j.rows[j.told:])
	j.told = len(j.rows)
	return refs, err
}

// Batch starts a batch of effects: once one holds Done, the rows of the run wait for End, and
// the events that report them too (the core fires the Stop hook, which reads the stored
// answer, before it ends a run that has one, so a batch that holds Done needs none stored).
func (j *Journal) Batch(effects []core.Effect) {
	j.holding = false
	if !j.quiet && slices.ContainsFunc(effects, func(e core.Effect) bool {
		_, done := e.(core.Done)
		return done
	}) {
		j.quiet = true
	}
}

// Defer keeps rows for the next commit when they may wait, and says whether it did. Approval
// rows may: the call they decide is durable already (its assistant row), and a crash before
// its result is answered by recovery as interrupted whether or not the decision was written.
// Every row of a batch that ends the run waits for End.
func (j *Journal) Defer(rows []core.Row) bool {
	if !j.quiet && !approvals(rows) {
		return false
	}
	j.deferred = append(j.deferred, rows...)
	j.holding = j.holding || j.quiet
	return true
}

func approvals(rows []core.Row) bool {
	for _, row := range rows {
		if _, ok := row.(core.ApprovalRow); !ok {
			return false
		}
	}
	return len(rows) > 0
}

// Hold keeps an event for End when it reports rows deferred for the run's end, and says
// whether it did.
func (j *Journal) Hold(p core.Payload) bool {
	if j.holding {
		j.held = append(j.held, p)
	}
	return j.holding
}

// Commit writes the deferred rows and then rows in one transaction, with the run's row when
// it is not written yet, and returns the rows stored.
func (j *Journal) Commit(ctx context.Context, rows []core.Row) ([]store.Chunk, error) {
	if len(j.deferred) > 0 {
		rows = append(j.deferred, rows...)
		j.deferred = nil
	}
	added, err := j.append(ctx, Chunks(rows))
	j.rows = append(j.rows, added...)
	return added, err
}

// Flush commits the deferred rows, and the run's row if it is not written yet, on their own;
// a no-op when there are none.
func (j *Journal) Flush(ctx context.Context) ([]store.Chunk, error) {
	if len(j.deferred) == 0 && j.pending == nil {
		return nil, nil
	}
	return j.Commit(ctx, nil)
}

func (j *Journal) append(ctx context.Context, chunks []store.NewChunk) ([]store.Chunk, error) {
	if j.pending == nil {
		return j.db.Append(ctx, j.session, j.run, chunks...)
	}
	_, added, err := j.db.StartRunWith(ctx, *j.pending, chunks...)
	if err == nil {
		j.pending = nil
	}
	return added, err
}

// Ended is what End stored: the run's row, the rows added, the results the store gave the
// calls left without one, and the events held for the rows, to publish once they are stored.
type Ended struct {
	Run         store.Run
	Added       []store.Chunk
	Synthesized []store.Chunk
	Held        []core.Payload
}

// End writes the rows kept for the run's end with its result res in one transaction. When
// that fails the run's end is written alone, with the result lost gives for the error, so the
// run never stays "running"; no events are handed back then, as what they report is not in
// the journal.
func (j *Journal) End(ctx context.Context, res store.RunResult, lost func(error) store.RunResult) (Ended, error) {
	if j.pending != nil { // the run ended before it stored anything (a cancel while tools settled)
		if _, err := j.append(ctx, nil); err != nil {
			return Ended{}, err
		}
	}
	rows, held := j.deferred, j.held
	j.deferred, j.held = nil, nil
	run, added, synthesized, err := j.db.AppendAndFinish(ctx, j.session, j.run, res, Chunks(rows)...)
	if err != nil && len(rows) > 0 {
		held = nil
		run, synthesized, err = j.db.FinishRun(ctx, j.run, lost(err))
	}
	j.rows = append(j.rows, added...)
	return Ended{Run: run, Added: added, Synthesized: synthesized, Held: held}, err
}

// Close lets go of the rows: only the run's result is kept once it ended.
func (j *Journal) Close() { j.rows, j.refs = nil, nil }
