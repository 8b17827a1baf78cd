package store

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// Room left on the disk holding the database. Below LowRoom the window warns before a run
// starts; below FullRoom it refuses to start one (a run's rows, a call's checkpoint and the
// log would not fit) and says why, while everything that only reads goes on.
const (
	LowRoom  = 100 << 20
	FullRoom = 1 << 20
)

// Room is the disk space left for the database at Path: Free is what an ordinary write may
// still use; Message says what a person should know ("" when there is room).
type Room struct {
	Path    string `json:"path"`
	Free    int64  `json:"free"`
	Low     bool   `json:"low"`
	Full    bool   `json:"full"`
	Message string `json:"message"`
}

// Room measures the space left on the disk holding the database now.
func (db *DB) Room() (Room, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(db.path), &st); err != nil {
		return Room{}, fmt.Errorf("space left for %s: %w", db.path, err)
	}
	r := Room{Path: db.path, Free: int64(st.Bavail) * int64(st.Bsize)}
	r.Full, r.Low = r.Free < FullRoom, r.Free < LowRoom
	switch {
	case r.Full:
		r.Message = fmt.Sprintf("The disk holding %s is full (%s free): free some space before sending. Sessions can still be read, searched and exported.", db.path, bytesText(r.Free))
	case r.Low:
		r.Message = fmt.Sprintf("The disk holding %s has only %s free: a run stops when it fills.", db.path, bytesText(r.Free))
	}
	return r, nil
}

// Refusal is the error a run is refused with on a full disk (nil when there is room): a
// StorageError, so errors.Is finds ErrDiskFull.
func (r Room) Refusal() error {
	if !r.Full {
		return nil
	}
	return &StorageError{Path: r.Path, Full: true, Err: fmt.Errorf("%s free; free some space, then send again", bytesText(r.Free))}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
