package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Files are named NNNN_name.sql; numbers
// start at 1 and never repeat. A number may be missing: numbers are handed out to work done
// side by side, and one reserved for work that needed no migration leaves a gap.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration file %s: want NNNN_name.sql", e.Name())
		}
		body, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version < 1 || i > 0 && m.version == ms[i-1].version {
			return nil, fmt.Errorf("migrations: version %d is not a new number from 1 up", m.version)
		}
	}
	return ms, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, _ := migrations()
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

const createMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`

// migrate applies the missing migrations and records each, all in one transaction, so a
// crash or a failing migration leaves the file at its older schema, whole.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	// One transaction: a new file is made with one durable commit instead of one per migration
	// (a first start's window waited for thirteen fsyncs).
	return db.tx(ctx, func(tx *sql.Tx) error {
		var tables, known int
		if err := tx.QueryRowContext(ctx,
			`SELECT count(*), count(*) FILTER (WHERE name = 'schema_migrations') FROM sqlite_master WHERE type = 'table'`,
		).Scan(&tables, &known); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if tables > 0 && known == 0 {
			return fmt.Errorf("migrate: %w: an SQLite file with other tables", ErrNotDatabase)
		}
		if _, err := tx.ExecContext(ctx, createMigrations); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		applied, err := appliedVersions(ctx, tx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		built := make(map[int]bool, len(ms))
		for _, m := range ms {
			built[m.version] = true
		}
		for v := range applied {
			if !built[v] {
				return fmt.Errorf("migrate: %w: file schema version %d, this build knows up to %d; upgrade Loopdesk",
					ErrTooNew, v, SchemaVersion())
			}
		}
		// Every migration the file lacks is applied, a lower number found after a higher one
		// included (work merged in another order than it was numbered).
		for _, m := range ms {
			if applied[m.version] {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migrate to version %d (%s): %w", m.version, m.name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, db.nowMS()); err != nil {
				return fmt.Errorf("migrate to version %d (%s): %w", m.version, m.name, err)
			}
		}
		return nil
	})
}

// appliedVersions are the migrations recorded in the file.
func appliedVersions(ctx context.Context, tx *sql.Tx) (map[int]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out[v] = true
	}
	return out, rows.Err()
}
