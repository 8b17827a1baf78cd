package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// The machine failing under the database: its disk full, an I/O error, or another process
// keeping the write lock. SQLite leaves the file as it was before the statement that failed
// (a transaction that cannot commit is rolled back whole), so these say what was not stored,
// never that something stored was lost.
var (
	// ErrStorage: the database's file could not be written or read (StorageError).
	ErrStorage = errors.New("the database could not be written")
	// ErrDiskFull: the disk holding the database is full (a StorageError with Full).
	ErrDiskFull = errors.New("the disk holding the database is full")
)

// StorageError is a write or a read of the database the system refused: its disk is full
// (Full) or it reported an I/O error. errors.Is finds ErrStorage, and ErrDiskFull when Full;
// Err is what SQLite said.
type StorageError struct {
	Path string
	Full bool
	Err  error
}

func (e *StorageError) Error() string {
	path := e.Path
	if path == "" {
		path = "the database"
	}
	if e.Full {
		return fmt.Sprintf("the disk holding %s is full (%v)", path, e.Err)
	}
	return fmt.Sprintf("an I/O error on %s (%v)", path, e.Err)
}

func (e *StorageError) Unwrap() error { return e.Err }

func (e *StorageError) Is(target error) bool {
	return target == ErrStorage || (target == ErrDiskFull && e.Full)
}

// StorageFault finds the machine's failure in err: a StorageError, or SQLite's own "full" or
// "I/O error" codes in an error from code that uses the handle directly (backend/checkpoint).
// One that does not name its file yet names path.
func StorageFault(err error, path string) (*StorageError, bool) {
	var se *StorageError
	if errors.As(err, &se) {
		if se.Path == "" {
			named := *se
			named.Path = path
			return &named, true
		}
		return se, true
	}
	var sq sqlite3.Error
	if !errors.As(err, &sq) {
		return nil, false
	}
	switch sq.Code {
	case sqlite3.ErrFull:
		return &StorageError{Path: path, Full: true, Err: err}, true
	case sqlite3.ErrIoErr:
		// A write the disk had no room for can come back as an I/O error (a log or index
		// that could not grow): the system's errno says which.
		return &StorageError{Path: path, Full: sq.SystemErrno == syscall.ENOSPC, Err: err}, true
	}
	return nil, false
}

// BusyError is a write that waited the busy timeout for another process's lock. Holders
// names the processes the system says hold it ("sqlite3 (pid 4242)"), when it tells.
type BusyError struct {
	Path    string
	Holders []string
	Err     error
}

func (e *BusyError) Error() string {
	who := "another process"
	if len(e.Holders) > 0 {
		who = strings.Join(e.Holders, ", ")
	}
	return fmt.Sprintf("the database is busy: %s holds it (%s): try again when it lets go", who, e.Path)
}

func (e *BusyError) Unwrap() error { return e.Err }

// explain names the file in the machine's failures, and who holds a lock waited for in vain.
// err is already classified.
func (db *DB) explain(err error) error {
	if err == nil {
		return nil
	}
	if f, ok := StorageFault(err, db.path); ok {
		return f
	}
	var be *BusyError
	if errors.Is(err, ErrLocked) && !errors.As(err, &be) {
		return &BusyError{Path: db.path, Holders: LockHolders(db.path), Err: err}
	}
	return err
}

// LockHolders names the other processes that hold a lock on the database at path or its
// -wal and -shm files: from /proc/locks (fcntl locks, which SQLite takes; write locks first),
// else the processes that have one of the files open. Empty when the system does not say.
func LockHolders(path string) []string {
	files := map[string]bool{}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if id, ok := lockID(p); ok {
			files[id] = true
		}
	}
	if len(files) == 0 {
		return nil
	}
	self := os.Getpid()
	var writers, readers []int
	if raw, err := os.ReadFile("/proc/locks"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			f := strings.Fields(line)
			if len(f) < 6 || strings.HasPrefix(f[1], "->") || !files[f[5]] { // "->": a waiter, not a holder
				continue
			}
			pid, err := strconv.Atoi(f[4])
			if err != nil || pid <= 0 || pid == self {
				continue
			}
			if f[3] == "WRITE" {
				writers = appendNew(writers, pid)
			} else {
				readers = appendNew(readers, pid)
			}
		}
	}
	pids := writers
	if len(pids) == 0 {
		pids = append(readers, openers(path, self)...)
	}
	var out []string
	for _, pid := range pids {
		out = append(out, describePID(pid))
	}
	return out
}

// lockID is the file's "major:minor:inode" as /proc/locks writes it.
func lockID(p string) (string, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	return fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino), true
}

// openers are the processes other than self with the database or its log open.
func openers(path string, self int) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	var out []int
	for _, fdDir := range procs {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(fdDir)))
		if pid == self {
			continue
		}
		fds, _ := os.ReadDir(fdDir)
		for _, fd := range fds {
			t, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err == nil && (t == path || t == path+"-wal" || t == path+"-shm") {
				out = appendNew(out, pid)
				break
			}
		}
	}
	return out
}

func describePID(pid int) string {
	name, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return fmt.Sprintf("pid %d", pid)
	}
	return fmt.Sprintf("%s (pid %d)", strings.TrimSpace(string(name)), pid)
}

func appendNew(pids []int, pid int) []int {
	for _, p := range pids {
		if p == pid {
			return pids
		}
	}
	return append(pids, pid)
}

// Failing reports whether err is the database failing under its caller: the machine
// (StorageFault), or a page SQLite found malformed — which a read the disk failed is too, as
// often as not, without the system's errno to tell them apart. Either way nothing that
// depends on the write or read may go on as if it had happened.
func Failing(err error) bool {
	if _, ok := StorageFault(err, ""); ok {
		return true
	}
	var sq sqlite3.Error
	return errors.Is(err, ErrCorrupt) || (errors.As(err, &sq) && sq.Code == sqlite3.ErrCorrupt)
}
