package loop

import (
	"context"
	"slices"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The end of a run in one durable commit (doc.go, "Durable commits"): the rows of the batch
// that ends the run (its answer, the results given to calls it cancelled) need to be durable
// only before run_finished is published, unless a Stop hook will read them first. So when no
// Stop hook can fire, execute holds them, with the events that report them, and finish writes
// them with the run's end in one transaction (Store.AppendAndFinish), then publishes
// rows_stored and the held events in their order, then run_finished.

// endsQuietly says whether effects end the run (they hold Done): the core fires the Stop
// hook, which reads the stored answer, before it ends a run that has one, so the rows of the
// batch that holds Done may wait for the run's end.
func endsQuietly(effects []core.Effect) bool {
	return slices.ContainsFunc(effects, func(e core.Effect) bool {
		_, done := e.(core.Done)
		return done
	})
}

// newChunks converts rows for the store (which adds a delivered queued message's hook
// context after it).
func newChunks(rows []core.Row) []store.NewChunk {
	chunks := make([]store.NewChunk, len(rows))
	for i, row := range rows {
		chunks[i] = store.NewChunk{Kind: store.Kind(row.Kind()), Payload: storePayload(row)}
	}
	return chunks
}

// append appends chunks to the run, and writes the run's row first in the same transaction
// when it is not written yet (Store.StartRunWith).
func (rn *run) append(ctx context.Context, chunks []store.NewChunk) ([]store.Chunk, error) {
	if rn.journal.pending == nil {
		return rn.r.cfg.Store.Append(ctx, rn.spec.SessionID, rn.id, chunks...)
	}
	_, added, err := rn.r.cfg.Store.StartRunWith(ctx, *rn.journal.pending, chunks...)
	if err == nil {
		rn.journal.pending = nil
	}
	return added, err
}

// storeEnd writes the held rows and the run's end in one transaction and publishes the held
// events once the rows are stored. If that transaction fails the run's end is written alone,
// as an error that says the last rows were lost, so the run never stays "running".
func (rn *run) storeEnd(ctx context.Context, res *core.Result) (store.Run, []store.Chunk, error) {
	if rn.journal.pending != nil { // the run ended before it stored anything (a cancel while tools settled)
		if _, err := rn.append(ctx, nil); err != nil {
			return store.Run{}, nil, err
		}
	}
	rows, held := rn.journal.deferred, rn.journal.held
	rn.journal.deferred, rn.journal.held = nil, nil
	result := func() store.RunResult {
		return store.RunResult{Status: store.RunStatus(res.Status), Output: res.Output, Error: res.Error, Worked: res.Worked}
	}
	run, added, synthesized, err := rn.r.cfg.Store.AppendAndFinish(ctx, rn.spec.SessionID, rn.id, result(), newChunks(rows)...)
	if err != nil && len(rows) > 0 {
		rn.r.log.Error("store the run's last rows", "session", rn.spec.SessionID, "run", rn.id, "err", err)
		if lost, ok := rn.lostEnd(*res, err); ok {
			*res = lost
		} else {
			res.Status, res.Error = core.StopError, "the run's last rows could not be stored: "+err.Error()
		}
		held = nil // what they report is not in the journal
		run, synthesized, err = rn.r.cfg.Store.FinishRun(ctx, rn.id, result())
	}
	rn.journal.chunks = append(rn.journal.chunks, added...)
	if aerr := rn.announce(ctx, added); aerr != nil {
		rn.r.log.Error("record what the run's last calls changed", "session", rn.spec.SessionID, "run", rn.id, "err", aerr)
	}
	for _, p := range held {
		rn.publish(p)
	}
	return run, synthesized, err
}
