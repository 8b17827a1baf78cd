package loop

import (
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The database failing under a run (its disk full, an I/O error) is a fact the runner
// reports to the core as StorageFailed; the core ends the run as storage_error.

// failed is the input for an effect that could not be carried out: the database failing
// (StorageFailed), or anything else (Failed). Safe on a worker: it reads no run state.
func (rn *run) failed(err error) core.Input {
	if f, ok := rn.storageFault(err); ok {
		return core.StorageFailed{Now: rn.now(), Fault: f}
	}
	return core.Failed{Now: rn.now(), Err: err.Error()}
}

// storageFault is err as the core's StorageFault, when it is the database failing. Seq is
// left 0: the core names the last row it was told of, which is the last row stored.
func (rn *run) storageFault(err error) (core.StorageFault, bool) {
	path := ""
	if p, ok := rn.r.cfg.Store.(interface{ Path() string }); ok {
		path = p.Path()
	}
	se, ok := store.StorageFault(err, path)
	if !ok {
		return core.StorageFault{}, false
	}
	return core.StorageFault{Path: se.Path, Full: se.Full, Err: se.Err.Error()}, true
}

// lostEnd is the result of a run whose end could not be stored (core.EndNotStored), with
// the database's failure, when it was one, naming the last row stored.
func (rn *run) lostEnd(res core.Result, lastRows bool, err error) core.Result {
	var fault *core.StorageFault
	if f, ok := rn.storageFault(err); ok {
		f.Seq = rn.journal.LastSeq()
		fault = &f
	}
	return core.EndNotStored(res, fault, lastRows, err.Error())
}
