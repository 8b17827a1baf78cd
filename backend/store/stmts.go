package store

import (
	"context"
	"database/sql"
	"sync"
)

// Statements prepared once per connection for the hot write path (Append: one call per row
// the runner stores). Preparing the chunks INSERT compiles the full-text triggers each
// time; profiled, preparing was about half of Append's own CPU time (BenchmarkRunnerTurn,
// docs/benchmarks.md). database/sql keeps one prepared copy per pooled connection and
// reuses it in every transaction on that connection.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// get returns the statement for query prepared on the pool, preparing it once.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[query]; ok {
		return s, nil
	}
	s, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = s
	return s, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.m {
		s.Close()
	}
	c.m = nil
}

// cachedTx is an execer over a write transaction that runs its queries through the
// statement cache. Only fixed query texts may go through it: the cache keeps every text.
//
// Its statements run without the context's cancellation (stmtCtx): go-sqlite3 runs a
// statement whose context can be cancelled on a goroutine of its own and waits for it, two
// hand-offs per statement, about a tenth of a small commit's cost on a busy machine
// (BenchmarkRunnerTurn). The context still bounds the transaction: DB.tx commits nothing
// when it is done before COMMIT. Only a statement already running is no longer interrupted,
// and one of these takes microseconds.
type cachedTx struct {
	tx *sql.Tx
	db *DB
}

func (db *DB) cached(tx *sql.Tx) cachedTx { return cachedTx{tx, db} }

func (c cachedTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s, err := c.db.stmts.get(ctx, c.db.sql, query)
	if err != nil {
		return nil, err
	}
	return c.tx.StmtContext(ctx, s), nil
}

func (c cachedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(stmtCtx(ctx), args...)
}

func (c cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(stmtCtx(ctx), args...)
}

// QueryRowContext cannot report a prepare error itself; it falls back to the transaction,
// which reports the same error on Scan.
func (c cachedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return c.tx.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(stmtCtx(ctx), args...)
}

// stmtCtx is ctx without its cancellation, for the statements of a write transaction
// (cachedTx).
func stmtCtx(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
