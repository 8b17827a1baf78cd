// Package store keeps Loopdesk's sessions in one SQLite file: sessions, their
// append-only rows (chunks), runs, approval rules and settings.
//
// Every exported method is one transaction (or one read) and safe for
// concurrent use; several processes may open the same file (WAL mode). The
// messages sent to a model are derived from the rows by Messages alone.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
)

// DefaultBusyTimeout is how long a write waits for another connection or
// process to release the write lock before failing with ErrLocked.
const DefaultBusyTimeout = 5 * time.Second

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// BusyTimeout overrides DefaultBusyTimeout (tests use a short one).
	BusyTimeout time.Duration
	// Now is the clock for created/updated times; time.Now when nil.
	Now func() time.Time
}

// DB is an open Loopdesk database.
type DB struct {
	sql  *sql.DB
	path string
	now  func() time.Time
	pid  int
	host string
	// origin is where this process's runs come from (SetRunOrigin), kept on each run it starts.
	origin atomic.Pointer[RunOrigin]
	// lastMS is the last time handed out by nowMS.
	lastMS atomic.Int64
	// Repaired says what repair-on-open did (empty when nothing was dangling).
	Repaired RepairReport
	// stmts holds the hot write path's prepared statements (stmts.go).
	stmts stmtCache
	// backlog counts the rows this process appended since it last indexed the rows left
	// out of the search index (search.go).
	backlog atomic.Int64
	// rowsRead counts the rows read from chunks (RowsRead).
	rowsRead atomic.Int64
	// waiting counts this process's writers waiting for the write lock (tx), for long work
	// done in batches to let them in between (removeRows).
	waiting atomic.Int32
}

// DefaultPath returns $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db
// (XDG_DATA_HOME defaulting to ~/.local/share), creating the parent folder
// with mode 0700: the file holds everything a person discussed with the agent.
func DefaultPath() (string, error) {
	p, err := DefaultPathOnly()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("create the database folder: %w", err)
	}
	return p, nil
}

// DefaultPathOnly is DefaultPath without creating the folder (for a look at a file that may
// not be there).
func DefaultPathOnly() (string, error) {
	p := os.Getenv("LOOPDESK_DB")
	if p == "" {
		base := os.Getenv("XDG_DATA_HOME")
		if base == "" || !filepath.IsAbs(base) { // the XDG spec says to ignore relative values
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("find the database: %w", err)
			}
			base = filepath.Join(home, ".local", "share")
		}
		p = filepath.Join(base, "loopdesk", "loopdesk.db")
	}
	return p, nil
}

// Open opens (creating if missing) the database at path, migrates it and
// repairs sessions left dangling by a crash. See OpenWith.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options. Errors wrap ErrNotDatabase, ErrCorrupt,
// ErrReadOnly, ErrLocked or ErrTooNew when the file is the problem.
func OpenWith(ctx context.Context, path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open database: %w: empty path", ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// A file nobody may write is a person's way of saying "don't touch":
	// refuse it up front (root would otherwise write it anyway), rather than
	// failing on the first append with a confusing message.
	if fi, err := os.Stat(abs); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("open database %s: %w: it is a folder", path, ErrNotDatabase)
		}
		if fi.Mode().Perm()&0o222 == 0 {
			return nil, fmt.Errorf("open database %s: %w", path, ErrReadOnly)
		}
	}
	if err := CheckFile(ctx, abs); err != nil { // damaged.go: nothing is written to a damaged file
		return nil, err
	}
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	host, _ := os.Hostname()
	sdb, err := sql.Open("sqlite3", dsn(abs, busy))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db := &DB{sql: sdb, path: abs, now: now, pid: os.Getpid(), host: host}
	if err := db.init(ctx, busy); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}

// dsn builds the connection string. Every pooled connection gets the same
// pragmas:
//   - journal_mode=WAL: readers never block the writer, and a killed writer
//     leaves the file consistent (the torn tail of the WAL is ignored).
//   - synchronous=FULL: a commit returns only after the WAL is fsynced.
//     NORMAL would already keep every committed row through a process kill
//     (the WAL write reaches the OS before COMMIT returns); FULL extends that
//     to power loss and OS crashes, for one fsync per logical step, which is
//     nothing next to a model round-trip. See docs/benchmarks.md for the cost.
//   - foreign_keys=on: rows, runs and rules go with their session.
//   - busy_timeout: wait for a concurrent writer instead of failing at once.
//   - _txlock=immediate: a transaction takes the write lock at BEGIN, so two
//     writers queue on the busy timeout instead of one failing mid-way with
//     SQLITE_BUSY when it upgrades from reader to writer.
func dsn(abs string, busy time.Duration) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(abs)
	return fmt.Sprintf("file:%s?_journal_mode=WAL&_synchronous=FULL&_foreign_keys=on&_busy_timeout=%d&_txlock=immediate",
		esc, busy.Milliseconds())
}

func (db *DB) init(ctx context.Context, busy time.Duration) error {
	if err := db.connect(ctx, busy); err != nil {
		return err
	}
	if err := db.incrementalVacuum(ctx); err != nil {
		return err
	}
	if err := db.migrate(ctx); err != nil {
		return err
	}
	if err := db.convertVacuum(ctx); err != nil {
		return err
	}
	rep, err := db.Repair(ctx)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	db.Repaired = rep
	return nil
}

// connect opens the first connection, which sets the file's pragmas (WAL among them). A
// connection opened while another process is creating the file or switching it to WAL can be
// told "busy" at once, without SQLite's busy handler (seen with two `loopdesk acp` agents
// started together on a fresh file); it is tried again, like any write, until the busy
// timeout has passed.
func (db *DB) connect(ctx context.Context, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	for {
		err := classify(db.sql.PingContext(ctx))
		if err == nil || !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Close closes the database. Safe to call once; rows already committed are durable.
func (db *DB) Close() error {
	db.stmts.close()
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("close database %s: %w", db.path, err)
	}
	restamp(db.path)
	return nil
}

// Path is the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// tx runs fn in one immediate transaction and maps SQLite errors once.
//
// A context done before the commit commits nothing. It is checked before BEGIN, by each
// statement fn runs with it, and before COMMIT, rather than handed to BEGIN: go-sqlite3 runs
// a statement whose context can be cancelled on a goroutine of its own and waits for it (two
// hand-offs per commit on a busy machine; see cachedTx). So a cancelled write still waiting
// for another process's lock gives up with the busy timeout, not at once.
func (db *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	db.waiting.Add(1)
	tx, err := db.sql.BeginTx(stmtCtx(ctx), nil)
	db.waiting.Add(-1)
	if err != nil {
		return db.explain(classify(err))
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return db.explain(classify(err))
	}
	if err := ctx.Err(); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return db.explain(classify(err))
	}
	return nil
}

// execer is what the unexported helpers need: the *sql.Tx of a write, or
// the *sql.Conn of a read snapshot.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// read runs fn in a deferred (read-only) transaction: one consistent
// snapshot that, unlike tx, does not take the write lock, so a long export
// never stalls a running agent's appends.
func (db *DB) read(ctx context.Context, fn func(execer) error) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return db.explain(classify(err))
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return db.explain(classify(err))
	}
	if err := fn(conn); err != nil {
		conn.ExecContext(context.Background(), "ROLLBACK")
		return db.explain(classify(err))
	}
	if _, err := conn.ExecContext(context.Background(), "COMMIT"); err != nil {
		return db.explain(classify(err))
	}
	return nil
}

// classify maps SQLite's error codes onto the store's sentinels, keeping
// SQLite's own text for the details.
func classify(err error) error {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return err
	}
	if f, ok := StorageFault(err, ""); ok {
		return f // the file is named where it is known (explain)
	}
	switch se.Code {
	case sqlite3.ErrNotADB:
		return fmt.Errorf("%w (%v)", ErrNotDatabase, se)
	case sqlite3.ErrCorrupt:
		return fmt.Errorf("%w (%v)", ErrCorrupt, se)
	case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrPerm:
		if se.Code == sqlite3.ErrCantOpen {
			return fmt.Errorf("cannot open the file (%v)", se)
		}
		return fmt.Errorf("%w (%v)", ErrReadOnly, se)
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		return fmt.Errorf("%w (%v)", ErrLocked, se)
	}
	return err
}

// nowMS reads the clock for a write. Within one process each write gets a
// strictly later millisecond than the previous one, so "most recently
// updated first" holds even for writes in the same millisecond.
func (db *DB) nowMS() int64 {
	t := db.now().UnixMilli()
	for {
		last := db.lastMS.Load()
		if t <= last {
			t = last + 1
		}
		if db.lastMS.CompareAndSwap(last, t) {
			return t
		}
	}
}

func fromMS(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// newID returns a random 24-hex-digit id. Ids are opaque; nothing sorts by them.
func newID() string {
	var b [12]byte
	rand.Read(b[:]) // never fails (crypto/rand panics on a broken system source)
	return hex.EncodeToString(b[:])
}

// SQL exposes the underlying handle to the packages that keep their own tables in the same
// file (backend/checkpoint) and to benchmarks that compare the store against bare SQL.
// Writing the store's own tables through it bypasses every invariant the store keeps.
func (db *DB) SQL() *sql.DB { return db.sql }
