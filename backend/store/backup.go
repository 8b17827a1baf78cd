package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
)

// ErrInUse: a restore while a window or a run has the database open.
var ErrInUse = errors.New("the database is in use")

// Backup copies the database at src to dst with SQLite's online backup (one read
// transaction: a consistent snapshot, while other connections and processes go on writing),
// then checks the copy (Check) and only then puts it at dst, so a file at dst is always
// whole. It never writes to src, so it also copies a damaged file (page for page; the
// problems the copy's check finds are returned, and the copy is kept, as the evidence it is).
// dst must not exist.
func Backup(ctx context.Context, src, dst string) ([]Problem, error) {
	if _, err := os.Stat(dst); err == nil {
		return nil, fmt.Errorf("back up into %s: %w: the file exists", dst, ErrInvalid)
	}
	tmp := dst + ".partial"
	os.Remove(tmp)
	if err := copyOnline(ctx, src, tmp); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("back up %s into %s: %w", src, dst, err)
	}
	problems, err := Check(ctx, tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("check the backup %s: %w", dst, err)
	}
	if err := syncFile(tmp); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("back up into %s: %w", dst, err)
	}
	return problems, syncDir(filepath.Dir(dst))
}

// copyOnline runs the backup API from a read-only connection on src into a new file at dst
// (left in rollback-journal mode with no -wal beside it: one file to copy or restore).
func copyOnline(ctx context.Context, src, dst string) error {
	from, err := openReadOnly(src)
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := sql.Open("sqlite3", "file:"+dst)
	if err != nil {
		return err
	}
	defer to.Close()
	fc, err := from.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer fc.Close()
	tc, err := to.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer tc.Close()
	err = tc.Raw(func(td any) error {
		return fc.Raw(func(fd any) error {
			b, err := td.(*sqlite3.SQLiteConn).Backup("main", fd.(*sqlite3.SQLiteConn), "main")
			if err != nil {
				return err
			}
			if _, err := b.Step(-1); err != nil {
				b.Close()
				return err
			}
			return b.Finish()
		})
	})
	if err != nil {
		return classify(err)
	}
	// The copy carries src's WAL flag in its header; a backup is one self-contained file.
	_, err = tc.ExecContext(ctx, `PRAGMA journal_mode = DELETE`)
	return classify(err)
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not every file system syncs a folder; the file itself is synced
	return nil
}

// Restore puts the backup at backup in place of the database at path: the backup is checked
// first (a damaged one is refused), the current file is kept beside as
// PATH.before-restore (replacing an older one), and the copy is synced before it takes the
// database's name. holders names the processes that have the database open; any of them
// refuses the restore with ErrInUse (the caller adds the window it knows of).
func Restore(ctx context.Context, backup, path string, holders []string) error {
	if len(holders) > 0 {
		return fmt.Errorf("restore %s: %w by %v: close it (and stop its runs) first", path, ErrInUse, holders)
	}
	problems, err := Check(ctx, backup)
	if err != nil {
		return fmt.Errorf("restore from %s: %w", backup, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("restore from %s: %w: the backup is damaged (%s)", backup, ErrInvalid, problems[0].Detail)
	}
	tmp := path + ".restoring"
	if err := copyFile(backup, tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("restore from %s: %w", backup, err)
	}
	if _, err := os.Stat(path); err == nil {
		before := path + ".before-restore"
		if err := os.Rename(path, before); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("keep %s beside it: %w", path, err)
		}
		// A WAL left by a crash belongs to the file kept, not to the one restored.
		for _, ext := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(path + ext); err == nil {
				os.Rename(path+ext, before+ext)
			}
		}
	}
	forgetStamp(path)
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
