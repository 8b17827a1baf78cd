package loop

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The end of a run in one durable commit (doc.go, "Durable commits"): the rows of the batch
// that ends the run (its answer, the results given to calls it cancelled) need to be durable
// only before run_finished is published, unless a Stop hook will read them first. So when no
// Stop hook can fire, the journal holds them, with the events that report them, and finish
// writes them with the run's end in one transaction (journal.End), then publishes
// rows_stored and the held events in their order, then run_finished.

// storeEnd writes the held rows and the run's end in one transaction and publishes the held
// events once the rows are stored. If that transaction fails the run's end is written alone,
// as an error that says the last rows were lost, so the run never stays "running".
func (rn *run) storeEnd(ctx context.Context, res *core.Result) (store.Run, []store.Chunk, error) {
	result := func() store.RunResult {
		return store.RunResult{Status: store.RunStatus(res.Status), Output: res.Output, Error: res.Error, Worked: res.Worked}
	}
	end, err := rn.journal.End(ctx, result(), func(err error) store.RunResult {
		rn.r.log.Error("store the run's last rows", "session", rn.spec.SessionID, "run", rn.id, "err", err)
		*res = rn.lostEnd(*res, true, err)
		return result()
	})
	if aerr := rn.announce(ctx, end.Added); aerr != nil {
		rn.r.log.Error("record what the run's last calls changed", "session", rn.spec.SessionID, "run", rn.id, "err", aerr)
	}
	for _, p := range end.Held {
		rn.publish(p)
	}
	return end.Run, end.Synthesized, err
}
