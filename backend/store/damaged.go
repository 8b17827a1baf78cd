package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// The open-time check. A damaged file must never be written: SQLite would go on appending to
// b-trees it cannot read whole, and the last close's checkpoint would copy a foreign WAL's
// pages into the file. So before Open connects the way it writes (WAL, migrations, repair),
// checkFile looks at the file through a read-only connection, which can neither checkpoint
// nor change the journal mode, and refuses it with a *DamagedError.
//
// PRAGMA quick_check reads every page: about 1.3 s for a 1 GB journal on this project's
// machines (docs/reliability.md, "Damaged databases"), too slow for every `loopdesk inbox`.
// What is bounded instead is how often it runs: after a clean check (or when this process,
// having opened the file clean, closes it) the files' sizes, modification times and inodes
// are kept beside the database (PATH-checked); the next open runs quick_check only when the
// database or its WAL changed since. Anything else writing into the file moves its mtime; the
// schema's version is read at every open.

// ErrDamaged: the file is damaged or ahead of this build, and Open refused to write to it.
// The error is a *DamagedError wrapping ErrCorrupt, ErrNotDatabase or ErrTooNew too.
var ErrDamaged = errors.New("database cannot be used")

// DamagedError says what is wrong with a database Open refused, and what the person can do.
// Every command but `db check`, `db recover` and `db backup` shows exactly this message.
type DamagedError struct {
	Path string
	// Problem is what is wrong, in a few words: SQLite's first complaint or the schema's version.
	Problem string
	// Kind is ErrCorrupt, ErrNotDatabase or ErrTooNew.
	Kind error
}

func (e *DamagedError) Error() string {
	switch {
	case errors.Is(e.Kind, ErrTooNew):
		return fmt.Sprintf("the database %s %s; upgrade Loopdesk to open it (nothing was written to it)", e.Path, e.Problem)
	case errors.Is(e.Kind, ErrNotDatabase):
		return fmt.Sprintf("the file %s is not a Loopdesk database: %s. Nothing was written to it. If it was one, its "+
			"header is damaged: `loopdesk db recover OUT.db` copies what can be read, `loopdesk db restore BACKUP` puts "+
			"a backup back", e.Path, e.Problem)
	}
	return fmt.Sprintf("the database %s is damaged: %s. Nothing was written to it. "+
		"`loopdesk db check` lists the sessions and rows affected, `loopdesk db recover OUT.db` copies "+
		"everything readable into a new file, `loopdesk db restore BACKUP` puts a backup back", e.Path, e.Problem)
}

func (e *DamagedError) Unwrap() []error { return []error{ErrDamaged, e.Kind} }

// CheckFile is the check Open makes before it writes: the file's header and size, the
// schema's version and, unless the file is unchanged since its last clean check,
// PRAGMA quick_check. A missing or empty file passes (Open creates it). It returns a
// *DamagedError for a file Open would refuse, another error when the file cannot be read.
func CheckFile(ctx context.Context, path string) error {
	st, err := statFiles(path)
	if err != nil || st.DB.Size == 0 {
		return nil // Open reports what stat could not, or makes the file
	}
	return checkFile(ctx, path, st)
}

func checkFile(ctx context.Context, path string, st fileStamp) error {
	conn, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer conn.Close()
	damaged := func(kind error, format string, args ...any) error {
		return &DamagedError{Path: path, Problem: fmt.Sprintf(format, args...), Kind: kind}
	}
	if p, kind := headerProblem(path, st.DB.Size); p != "" {
		return damaged(kind, "%s", p)
	}
	var version int
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return classifyDamage(path, err)
	}
	if tables == 1 {
		if err := conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version); err != nil {
			return classifyDamage(path, err)
		}
	}
	if version > SchemaVersion() {
		return damaged(ErrTooNew, "was written by a newer Loopdesk (schema version %d; this one knows up to %d)", version, SchemaVersion())
	}
	if prev, ok := readStamp(path); ok && prev == st {
		return nil
	}
	problems, err := quickCheck(ctx, conn, 1)
	if err != nil {
		return classifyDamage(path, err)
	}
	if len(problems) > 0 {
		return damaged(ErrCorrupt, "SQLite's quick check says %q", problems[0])
	}
	writeStamp(path, st)
	return nil
}

// classifyDamage turns an error reading the file into a *DamagedError when SQLite says the
// file is not a database or is malformed; other errors (permissions, a lock) pass through.
func classifyDamage(path string, err error) error {
	err = classify(err)
	switch {
	case errors.Is(err, ErrNotDatabase):
		return &DamagedError{Path: path, Problem: "its header is not an SQLite database's", Kind: ErrNotDatabase}
	case errors.Is(err, ErrCorrupt):
		return &DamagedError{Path: path, Problem: strings.TrimPrefix(err.Error(), ErrCorrupt.Error()+" "), Kind: ErrCorrupt}
	}
	return fmt.Errorf("check database %s: %w", path, err)
}

// quickCheck runs PRAGMA quick_check and returns its complaints (none for a sound file), at
// most limit of them.
func quickCheck(ctx context.Context, conn *sql.DB, limit int) ([]string, error) {
	return pragmaLines(ctx, conn, fmt.Sprintf("PRAGMA quick_check(%d)", limit))
}

// pragmaLines runs a check pragma and returns its lines but "ok" (what it read before an
// error too).
func pragmaLines(ctx context.Context, conn *sql.DB, q string) ([]string, error) {
	lines, err := queryStrings(ctx, conn, q)
	var out []string
	for _, l := range lines {
		if l != "ok" {
			// SQLite heads a report with "*** in database main ***" and a newline.
			out = append(out, strings.TrimSpace(strings.TrimPrefix(l, "*** in database main ***")))
		}
	}
	return out, err
}

// openReadOnly opens path for reading only: no journal-mode pragma, no checkpoint on close,
// no file created. One connection, so a temporary table or pragma holds for every query.
func openReadOnly(path string) (*sql.DB, error) {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	conn, err := sql.Open("sqlite3", fmt.Sprintf("file:%s?mode=ro&_busy_timeout=%d", esc, DefaultBusyTimeout.Milliseconds()))
	if err != nil {
		return nil, fmt.Errorf("check database %s: %w", path, err)
	}
	conn.SetMaxOpenConns(1)
	return conn, nil
}

// headerProblem reads the first 100 bytes: a truncated file is caught here when the header's
// page count is trustworthy (its "version-valid-for" equals the change counter) and the WAL
// holds no frames.
func headerProblem(path string, size int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	h := make([]byte, 100)
	if _, err := f.ReadAt(h, 0); err != nil {
		return fmt.Sprintf("the file is %d bytes, shorter than an SQLite header", size), ErrNotDatabase
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return "its header is not an SQLite database's", ErrNotDatabase
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	// With frames in the WAL the file may lawfully be shorter than its header says for a
	// moment: a checkpoint in another process writes page 1 before the pages that extend the
	// file. quick_check, which reads through the WAL, judges such a file instead.
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return "", nil
	}
	if binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96]) && pages*pageSize > size {
		return fmt.Sprintf("the file is truncated: its header counts %d pages of %d bytes, the file holds %d bytes", pages, pageSize, size), ErrCorrupt
	}
	return "", nil
}

// fileStamp identifies the database file and its WAL as they were when last checked.
type fileStamp struct {
	DB  fileID `json:"db"`
	WAL fileID `json:"wal"`
}

type fileID struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
	Inode uint64 `json:"inode"`
}

func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Inode = s.Ino
	}
	return id, nil
}

func statFiles(path string) (fileStamp, error) {
	db, err := statID(path)
	if err != nil {
		return fileStamp{}, err
	}
	wal, _ := statID(path + "-wal") // no WAL is the zero ID
	return fileStamp{DB: db, WAL: wal}, nil
}

func stampPath(path string) string { return path + "-checked" }

func readStamp(path string) (fileStamp, bool) {
	b, err := os.ReadFile(stampPath(path))
	if err != nil {
		return fileStamp{}, false
	}
	var st fileStamp
	return st, json.Unmarshal(b, &st) == nil
}

// writeStamp records a clean state. Failing to write it only costs the next open a check.
func writeStamp(path string, st fileStamp) {
	b, _ := json.Marshal(st)
	tmp := stampPath(path) + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, stampPath(path))
	}
}

// forgetStamp makes the next open check the file whole (a restored or replaced file).
func forgetStamp(path string) { _ = os.Remove(stampPath(path)) }

// restamp records the files as this process leaves them: it opened them clean, and what
// changed since is its own (and other Loopdesk processes') writes.
func restamp(path string) {
	if st, err := statFiles(path); err == nil && st.DB.Size > 0 {
		writeStamp(path, st)
	}
}
