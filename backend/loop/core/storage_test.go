package core

import "testing"

// TestEndNotStored: what a run ends as when its end could not be written, for each cause.
func TestEndNotStored(t *testing.T) {
	done := Result{Status: StopCompleted, Output: "ok"}
	full := &StorageFault{Path: "/d/loopdesk.db", Full: true, Seq: 7}
	stopped := Result{Status: StopStorageError, Error: "the disk holding /d/loopdesk.db is full: nothing after row 5 was stored"}
	for _, tc := range []struct {
		name     string
		res      Result
		fault    *StorageFault
		lastRows bool
		status   StopReason
		err      string
	}{
		{"the disk full under the end", done, full, true, StopStorageError, "the disk holding /d/loopdesk.db is full: nothing after row 7 was stored"},
		{"stopped by the database before: kept", stopped, nil, true, StopStorageError, stopped.Error},
		{"stopped by the database, then full again: the first message kept", stopped, full, false, StopStorageError, stopped.Error},
		{"its last rows lost", done, nil, true, StopError, "the run's last rows could not be stored: locked"},
		{"its result alone lost", done, nil, false, StopCompleted, "the result could not be stored: locked"},
		{"its result lost after an error: the error kept", Result{Status: StopProviderError, Error: "500"}, nil, false, StopProviderError, "500"},
	} {
		got := EndNotStored(tc.res, tc.fault, tc.lastRows, "locked")
		if got.Status != tc.status || got.Error != tc.err {
			t.Errorf("%s: %s %q; want %s %q", tc.name, got.Status, got.Error, tc.status, tc.err)
		}
	}
}
