package store_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/loopdesk/loopdesk/backend/store"
)

func openErr(t *testing.T, path string) error {
	t.Helper()
	db, err := store.OpenWith(context.Background(), path, store.Options{BusyTimeout: 300 * time.Millisecond})
	if err == nil {
		db.Close()
		return nil
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error does not name the file: %v", err)
	}
	return err
}

func TestOpenRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()

	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte(strings.Repeat("these are my notes, not a database\n", 200)), 0o600)
	if err := openErr(t, text); !errors.Is(err, store.ErrNotDatabase) {
		t.Errorf("text file: want ErrNotDatabase, got %v", err)
	}

	foreign := filepath.Join(dir, "other.db")
	if o, err := sql.Open("sqlite3", foreign); err == nil {
		o.Exec(`CREATE TABLE contacts(name TEXT)`)
		o.Close()
	}
	if err := openErr(t, foreign); !errors.Is(err, store.ErrNotDatabase) {
		t.Errorf("another app's SQLite file: want ErrNotDatabase, got %v", err)
	}

	if err := openErr(t, dir); !errors.Is(err, store.ErrNotDatabase) {
		t.Errorf("a folder: want ErrNotDatabase, got %v", err)
	}

	ro := filepath.Join(dir, "ro.db")
	db := openPath(t, ro)
	db.Close()
	os.Chmod(ro, 0o444)
	if err := openErr(t, ro); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("read-only file: want ErrReadOnly, got %v", err)
	}
}

func TestOpenCorruptFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	db := openPath(t, path)
	s := mustSession(t, db, "s")
	for i := 0; i < 200; i++ {
		mustAppend(t, db, s.ID, "", user(strings.Repeat(fmt.Sprintf("row %d ", i), 50)))
	}
	db.Close()
	// Scribble over every page but the first (the schema stays readable).
	b, _ := os.ReadFile(path)
	for i := 4096; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	os.WriteFile(path, b, 0o600)
	db, err := store.OpenWith(ctx, path, store.Options{BusyTimeout: 300 * time.Millisecond})
	if err == nil {
		_, err = db.Chunks(ctx, s.ID)
		db.Close()
	}
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("scribbled file: want ErrCorrupt, got %v", err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	db := openPath(t, path)
	if _, err := db.SQL().Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, 'from the future', 0)`, store.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	err := openErr(t, path)
	if !errors.Is(err, store.ErrTooNew) || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestMigrationsRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	db := openPath(t, path)
	var n, max int
	if err := db.SQL().QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("migrations/*.sql")
	if n != len(files) || max != store.SchemaVersion() || n < 1 {
		t.Fatalf("recorded %d migrations up to %d, build has %d", n, max, store.SchemaVersion())
	}
	var mode string
	db.SQL().QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	var fk, sync int
	db.SQL().QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
	db.SQL().QueryRow(`PRAGMA synchronous`).Scan(&sync)
	if mode != "wal" || fk != 1 || sync != 2 {
		t.Fatalf("pragmas: journal_mode=%s foreign_keys=%d synchronous=%d", mode, fk, sync)
	}
	// An empty (version 0) database is migrated on open.
	empty := filepath.Join(t.TempDir(), "v0.db")
	o, _ := sql.Open("sqlite3", empty)
	o.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
	o.Close()
	db = openPath(t, empty)
	if _, err := db.CreateSession(context.Background(), store.NewSession{}); err != nil {
		t.Fatalf("version-0 file not migrated: %v", err)
	}
}

// TestOpenLockedByAnotherProcess holds the write lock from a child process
// (this test binary re-executed) and expects a clear ErrLocked.
func TestOpenLockedByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.db")
	openPath(t, path).Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=lock", childDB+"="+path)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	err = openErr(t, path)
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("locked file: want ErrLocked, got %v", err)
	}
}

// childLock holds a write transaction until stdin closes.
func childLock(path string) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tx, err := db.Begin()
	if err == nil {
		_, err = tx.Exec(`INSERT INTO settings(key, value) VALUES ('held', 'x')`)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("locked")
	bufio.NewReader(os.Stdin).ReadString('\n')
	tx.Rollback()
	os.Exit(0)
}

// An upgrade applies every pending migration in one transaction: when a later one fails, the
// earlier ones of the same upgrade are not kept, and the file stays at its older schema whole
// (here 0012 would apply, and 0013 fails because what it drops is already gone).
func TestAFailingUpgradeLeavesTheOlderSchemaWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db := openPath(t, path)
	for _, q := range []string{
		`DELETE FROM schema_migrations WHERE version >= 12`,
		`ALTER TABLE queued_messages DROP COLUMN hook_context`, // undo 0012 only
	} {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	err := openErr(t, path)
	if err == nil || !strings.Contains(err.Error(), "migrate to version 13") {
		t.Fatalf("open: %v, want migration 13's failure", err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var version, hookContext int
	if err := raw.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM pragma_table_info('queued_messages') WHERE name = 'hook_context'`).Scan(&hookContext); err != nil {
		t.Fatal(err)
	}
	if version != 11 || hookContext != 0 {
		t.Fatalf("after the failed upgrade: version %d, hook_context columns %d; want 11 and 0 (0012 rolled back with 0013)", version, hookContext)
	}
}

// A file that has a higher migration but lacks a lower one (numbers handed out side by side,
// merged in another order) gets the lower one on the next open.
func TestOpenAppliesAMissingLowerMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gap.db")
	db := openPath(t, path)
	if _, err := db.SQL().Exec(`DROP TABLE skill_trust; DELETE FROM schema_migrations WHERE version = 14`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openPath(t, path)
	defer db.Close()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM schema_migrations WHERE version = 14`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("migration 14 recorded %d times (%v)", n, err)
	}
	if _, err := db.SQL().Exec(`SELECT path FROM skill_trust`); err != nil {
		t.Fatalf("the missing migration was not applied: %v", err)
	}
}
