package checkpoint

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// MaxContent is the largest file whose content is kept (10 MiB). Bigger
// files are recorded by size and hash only; a restore cannot bring them back.
const MaxContent = 10 << 20

// Change is one path one row changed. Size and SHA256 describe the content
// after the change, or before it for Deleted (both zero for folders and
// links). Before and After are the full states (nil = absent).
type Change struct {
	Seq    int64      `json:"seq"`
	Path   string     `json:"path"`
	Change ChangeKind `json:"change"`
	Size   int64      `json:"size"`
	SHA256 string     `json:"sha256"`
	// By: "agent" (a tool call), "outside" (found between calls: the
	// person's editor, a build...) or "person" (a restore or hunk revert).
	By     ChangeAuthor `json:"by"`
	Before *Entry       `json:"-"`
	After  *Entry       `json:"-"`
}

func (c *Change) fill() {
	e := c.After
	if c.Change == Deleted {
		e = c.Before
	}
	if e != nil && e.Kind == KindFile {
		c.Size, c.SHA256 = e.Size, e.SHA256
	}
}

// Options tune a Recorder; the zero value is what the app uses.
type Options struct {
	// NoWatch: no inotify; every capture walks the whole folder (stat
	// only, reading just what changed). For one-shot processes (the CLI).
	NoWatch bool
	// MaxContent overrides MaxContent (tests).
	MaxContent int64
	// Now is the clock for capture times; time.Now when nil.
	Now func() time.Time
	// Watches shares each folder's watcher with the rest of the app (the window's file
	// tree); nil: the recorder's own.
	Watches *tools.Watches
}

// Recorder records what file-changing tool calls do to their folders and
// restores them. One per process and database; safe for concurrent use.
// Captures of one folder are serialized (Before .. After), whichever session
// makes them, so each change is attributed to the call that made it.
type Recorder struct {
	db   *store.DB
	sql  *sql.DB
	opts Options

	mu    sync.Mutex
	roots map[string]*rootState
}

// rootState is one folder. lock (a one-slot semaphore, so waiting honours
// ctx) guards everything else.
type rootState struct {
	path  string
	lock  chan struct{}
	cache map[string]*Entry // nil until loaded
	tr    *tracker
	fsr   *os.Root
}

// New returns a Recorder over db. Close it to stop its watchers.
func New(db *store.DB, opts Options) *Recorder {
	if opts.MaxContent <= 0 {
		opts.MaxContent = MaxContent
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Watches == nil {
		opts.Watches = &tools.Watches{}
	}
	return &Recorder{db: db, sql: db.SQL(), opts: opts, roots: map[string]*rootState{}}
}

// Close stops the folder watchers. Captures still open are left pending.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range r.roots {
		if rs.tr != nil {
			rs.tr.close()
		}
		if rs.fsr != nil {
			rs.fsr.Close()
		}
	}
	r.roots = map[string]*rootState{}
	return nil
}

func cleanRoot(root string) (string, error) {
	if root == "" || !filepath.IsAbs(root) {
		return "", fmt.Errorf("%w: folder %q is not an absolute path", ErrFolderGone, root)
	}
	return filepath.Clean(root), nil
}

// acquire locks root's state, loading it on first use: the cache from the
// database, a watcher, pending captures of an earlier process linked, and
// the cache brought up to date with a full scan.
func (r *Recorder) acquire(ctx context.Context, root string) (*rootState, error) {
	root, err := cleanRoot(root)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	rs, ok := r.roots[root]
	if !ok {
		rs = &rootState{path: root, lock: make(chan struct{}, 1)}
		r.roots[root] = rs
	}
	r.mu.Unlock()
	select {
	case rs.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := r.open(ctx, rs); err != nil {
		rs.release()
		return nil, err
	}
	return rs, nil
}

func (rs *rootState) release() { <-rs.lock }

func (r *Recorder) open(ctx context.Context, rs *rootState) error {
	fi, err := os.Stat(rs.path)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s", ErrFolderGone, rs.path)
	}
	if rs.fsr != nil {
		// The same path may now be another folder (moved away, re-created).
		if st, err := rs.fsr.Stat("."); err != nil || !os.SameFile(st, fi) {
			rs.fsr.Close()
			rs.fsr = nil
			if rs.tr != nil {
				rs.tr.close()
				rs.tr = nil
			}
		}
	}
	if rs.fsr == nil {
		if rs.fsr, err = os.OpenRoot(rs.path); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrFolderGone, rs.path, err)
		}
	}
	if rs.tr == nil && !r.opts.NoWatch {
		rs.tr, _ = startTracker(r.opts.Watches, rs.path) // nil: no inotify (watch limit); full scans instead
	}
	if rs.cache != nil {
		return nil
	}
	cache, err := loadCache(ctx, r.sql, rs.path)
	if err != nil {
		return err
	}
	rs.cache = cache
	// A capture left pending by a killed process: its "before" is the
	// cache as loaded; link what changed since to the result row repair
	// added, before anything else is attributed.
	return r.linkPending(ctx, rs)
}

// refresh brings the cache up to date and returns what changed since.
func (r *Recorder) refresh(ctx context.Context, rs *rootState, extra ...string) ([]delta, error) {
	dirty, trees, full := map[string]bool{}, map[string]bool{}, true
	if rs.tr != nil {
		dirty, trees, full = rs.tr.take(ctx)
	}
	for _, p := range extra {
		dirty[p] = true
	}
	ds, err := scan(rs.fsr, rs.cache, dirty, trees, full, r.opts.MaxContent)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", rs.path, err)
	}
	return ds, nil
}

// commit applies ds to the database (fn adds the capture's own rows in the
// same transaction) and then to the cache.
func (r *Recorder) commit(ctx context.Context, rs *rootState, ds []delta, fn func(tx *sql.Tx) error) error {
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// The capture's rows first: they must refer to a blob before the
		// cache lets go of it, or the triggers free it.
		if fn != nil {
			if err := fn(tx); err != nil {
				return err
			}
		}
		return saveDeltas(ctx, tx, rs.path, ds)
	})
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.new == nil {
			delete(rs.cache, d.path)
		} else {
			rs.cache[d.path] = d.new
		}
	}
	return nil
}

// Prepare brings root's stat cache and blobs up to date without recording
// a capture, so the first Before of a session does not pay for the
// baseline (docs/checkpoints.md). The app may call it in the background
// when a session opens its folder; it waits for, and then holds up,
// captures of the same folder.
func (r *Recorder) Prepare(ctx context.Context, root string) error {
	rs, err := r.acquire(ctx, root)
	if err != nil {
		return fmt.Errorf("prepare checkpoints of %s: %w", root, err)
	}
	defer rs.release()
	ds, err := r.refresh(ctx, rs)
	if err == nil {
		err = r.commit(ctx, rs, ds, nil)
	}
	if err != nil {
		return fmt.Errorf("prepare checkpoints of %s: %w", root, err)
	}
	return nil
}

// Capture is a call's "before" state, durable from Before's return. It must
// end with exactly one After or Abort; until then other captures of the same
// folder wait.
type Capture struct {
	r    *Recorder
	rs   *rootState
	id   int64
	once sync.Once
}

// Before records, durably, the state of root's tracked files before the
// call callID of sessionID changes them. The first Before of a folder in a
// process scans the whole folder (and, the first time ever, stores every
// file's content: see docs/checkpoints.md); later ones cost what changed.
func (r *Recorder) Before(ctx context.Context, sessionID, runID, callID, root string) (*Capture, error) {
	rs, err := r.acquire(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint before call %s: %w", callID, err)
	}
	c := &Capture{r: r, rs: rs}
	// Outside edits since the last capture are recorded in the same transaction.
	err = r.catchUp(ctx, rs, sessionID, runID, callID, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO cp_captures(session_id, run_id, call_id, root, created_at) VALUES (?, ?, ?, ?, ?)`,
			sessionID, runID, callID, rs.path, r.opts.Now().UnixMilli())
		if err == nil {
			c.id, err = res.LastInsertId()
		}
		return err
	})
	if err != nil {
		rs.release()
		return nil, fmt.Errorf("checkpoint before call %s: %w", callID, err)
	}
	return c, nil
}

// After records what changed since Before, linked to the call's result row
// resultSeq, and ends the capture. The changes are returned in path order.
// After a failure the capture stays pending and the next process to open
// the folder links it (see Recover).
func (c *Capture) After(ctx context.Context, resultSeq int64) ([]Change, error) {
	var out []Change
	err := errors.New("capture already ended")
	c.once.Do(func() {
		defer c.rs.release()
		out, err = c.r.finish(ctx, c.rs, c.id, resultSeq)
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint after row %d: %w", resultSeq, err)
	}
	return out, nil
}

// Abort ends a capture without recording (the call never ran). It stays
// pending in the database; if a result row for the call exists when the
// folder is next opened, whatever changed is linked to it.
func (c *Capture) Abort() {
	c.once.Do(c.rs.release)
}

// finish scans, records the changes of capture id at seq, and returns them.
// The capture is claimed with seq in the same transaction: if another
// process linked it first, nothing is recorded twice.
func (r *Recorder) finish(ctx context.Context, rs *rootState, id, seq int64) ([]Change, error) {
	ds, err := r.refresh(ctx, rs)
	if err != nil {
		return nil, err
	}
	err = r.commit(ctx, rs, ds, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE cp_captures SET seq = ? WHERE id = ? AND seq = 0`, seq, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // linked elsewhere; the cache still moves on
		}
		return insertChanges(ctx, tx, id, ds)
	})
	if err != nil {
		return nil, err
	}
	return changesOf(ds, seq), nil
}

// changesOf lists the deltas that are changes, as recorded on row seq.
func changesOf(ds []delta, seq int64) []Change {
	out := []Change{}
	for _, d := range ds {
		if d.change != "" {
			c := Change{Seq: seq, Path: d.path, Change: d.change, Before: d.old, After: d.new, By: ByAgent}
			c.fill()
			out = append(out, c)
		}
	}
	return out
}

// linkPending links the captures of rs left pending by a process that
// ended without After to their call's result row, when there is one.
// Called with rs locked and its cache freshly loaded.
func (r *Recorder) linkPending(ctx context.Context, rs *rootState) error {
	// A call is known by (run_id, call_id): call ids repeat across runs (llama.cpp, Ollama and
	// TGI number them per response), and even across the turns of one run. A capture is
	// pending only for the call that was running when the process died, the run's last, so
	// its result is the latest row of that run answering that id, stored after the capture.
	type pend struct{ id, seq int64 }
	var ps []pend
	err := eachRow(ctx, r.sql, func(rows *sql.Rows) error {
		var p pend
		if err := rows.Scan(&p.id, &p.seq); err != nil {
			return err
		}
		if p.seq > 0 {
			ps = append(ps, p)
		}
		return nil
	}, `SELECT c.id, coalesce((SELECT k.seq FROM chunks k WHERE k.session_id = c.session_id
			AND k.run_id = c.run_id AND k.kind = 'tool_result' AND json_extract(k.payload, '$.call_id') = c.call_id
			AND k.created_at >= c.created_at ORDER BY k.seq DESC LIMIT 1), 0)
		FROM cp_captures c WHERE c.root = ? AND c.seq = 0 ORDER BY c.id`, rs.path)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if _, err := r.finish(ctx, rs, p.id, p.seq); err != nil {
			return fmt.Errorf("link interrupted capture %d to row %d: %w", p.id, p.seq, err)
		}
	}
	return nil
}

// LinkInterrupted links the pending capture of call (runID, callID) in sessionID to
// seq (the interrupted result row repair added) and records what changed
// since its Before. Opening the folder does the same for every such
// capture whose result row exists; this is for a caller that knows the row.
func (r *Recorder) LinkInterrupted(ctx context.Context, sessionID, runID, callID string, seq int64) ([]Change, error) {
	var id int64
	var root string
	err := r.sql.QueryRowContext(ctx, `SELECT id, root FROM cp_captures WHERE session_id = ? AND run_id = ? AND call_id = ? AND seq = 0
		ORDER BY id DESC LIMIT 1`, sessionID, runID, callID).Scan(&id, &root)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("link call %s to row %d: %w: no pending capture", callID, seq, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("link call %s to row %d: %w", callID, seq, err)
	}
	rs, err := r.acquire(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("link call %s to row %d: %w", callID, seq, err)
	}
	defer rs.release()
	out, err := r.finish(ctx, rs, id, seq)
	if err != nil {
		return nil, fmt.Errorf("link call %s to row %d: %w", callID, seq, err)
	}
	return out, nil
}

// Recover links every pending capture whose call has a result row (after a
// kill, repair-on-open adds an "interrupted" one), folder by folder. Call it
// once after store.Open, before the first Before; it returns how many
// folders it looked at. A folder that is gone is skipped.
func (r *Recorder) Recover(ctx context.Context) (int, error) {
	var roots []string
	rows, err := r.sql.QueryContext(ctx, `SELECT DISTINCT root FROM cp_captures WHERE seq = 0`)
	if err != nil {
		return 0, fmt.Errorf("recover checkpoints: %w", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return 0, err
		}
		roots = append(roots, s)
	}
	rows.Close()
	n := 0
	for _, root := range roots {
		rs, err := r.acquire(ctx, root)
		if errors.Is(err, ErrFolderGone) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("recover checkpoints of %s: %w", root, err)
		}
		n++
		err = r.linkPending(ctx, rs) // already done by a first acquire; cheap otherwise
		rs.release()
		if err != nil {
			return n, fmt.Errorf("recover checkpoints of %s: %w", root, err)
		}
	}
	return n, nil
}

// Content returns the stored content of a file state (a Change's Before
// or After), for showing a per-file diff. ErrNoContent when it was not kept.
func (r *Recorder) Content(ctx context.Context, e *Entry) ([]byte, error) {
	if e == nil || e.Kind != KindFile {
		return nil, fmt.Errorf("content: %w: not a file", ErrNoContent)
	}
	if !e.Stored {
		return nil, fmt.Errorf("content of %s: %w", short(e.SHA256), ErrNoContent)
	}
	data, err := getBlob(ctx, r.sql, e.SHA256, r.opts.MaxContent)
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	return data, nil
}

// Changes returns every change recorded for sessionID's rows, by seq then path;
// a fork's rows copied from its parent have the parent's (see lineage).
func (r *Recorder) Changes(ctx context.Context, sessionID string) ([]Change, error) {
	spans, err := r.lineOf(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	where, args := spansWhere(spans, false)
	rows, err := queryChanges(ctx, r.sql, where, args...)
	if err != nil {
		return nil, fmt.Errorf("changes of session %s: %w", sessionID, err)
	}
	out := make([]Change, len(rows))
	for i, row := range rows {
		out[i] = row.Change
	}
	return out, nil
}
