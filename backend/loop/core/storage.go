package core

import (
	"fmt"
	"time"
)

// StorageFault is what the driver knows of a database that could not keep a run's rows:
// which file, whether its disk is full (else the system reported an I/O error), the last
// row of the session the file holds (0: the last row the core was told of as stored, which
// is the same for a driver that tells it every row it stores), and what the system said.
type StorageFault struct {
	Path string
	Full bool
	Seq  int64
	Err  string
}

// StorageFailed reports that the database failed under the run: a write of its rows, or of a
// call's checkpoint record (before the call, which then never runs; or after it, when what
// it changed could not be recorded). Unlike Failed, the run's own rows are not at fault and
// the person has something to do (free space, check the disk): the run ends with
// StopStorageError and a message that says which file and what is kept.
type StorageFailed struct {
	Now   time.Time
	Fault StorageFault
}

func (StorageFailed) input() {}

// Message is the run's error text: the file, and the last row it holds, so the person knows
// what survived ("nothing after row N was stored").
func (f StorageFault) Message() string {
	if f.Full {
		return fmt.Sprintf("the disk holding %s is full: nothing after row %d was stored", f.Path, f.Seq)
	}
	return fmt.Sprintf("an I/O error on %s (%s): nothing after row %d was stored", f.Path, f.Err, f.Seq)
}

// StorageLost is the result of a run whose end could not be stored (its last rows and its
// result): whatever it ended with, it ended with the database failing under it. A result
// that already says so keeps its message, which names the first row lost.
func StorageLost(res Result, f StorageFault) Result {
	if res.Status == StopStorageError {
		return res
	}
	res.Status, res.Error = StopStorageError, f.Message()
	return res
}

// EndNotStored is the result of a run whose end could not be written. The database failing
// (f non-nil) ends it as storage_error naming the last row stored; a run the database had
// already stopped keeps its result (rows that no longer pair up, a cancelled call's result
// whose call row was lost, follow from that failure); otherwise an end written without its
// last rows (lastRows) is an error saying they were lost, and an end whose result alone could
// not be written keeps its status with the reason.
func EndNotStored(res Result, f *StorageFault, lastRows bool, err string) Result {
	switch {
	case f != nil:
		return StorageLost(res, *f)
	case res.Status == StopStorageError:
	case lastRows:
		res.Status, res.Error = StopError, "the run's last rows could not be stored: "+err
	case res.Error == "":
		res.Error = "the result could not be stored: " + err
	}
	return res
}

// storageStop ends the run for a storage failure, naming the last row stored.
func storageStop(s State, f StorageFault) (State, []Effect) {
	if f.Seq == 0 {
		if rows := s.rowsOf(); len(rows) > 0 {
			f.Seq = rows[len(rows)-1].Seq
		}
	}
	return stop(s, StopStorageError, f.Message())
}
