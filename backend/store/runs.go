package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// RunStatus is a run's state: running, interrupted (found dangling on open),
// or the loop's stop reason (completed, max_turns, cancelled, ...).
type RunStatus string

// Statuses the store itself sets; the loop's stop reasons are its own.
const (
	RunRunning     RunStatus = "running"
	RunInterrupted RunStatus = "interrupted"
)

// Run is the audit record of one agent run on a session: the agent used
// (model, system prompt hash, budgets) and its structured result.
// EndedAt is zero while running. Compaction never touches runs.
type Run struct {
	ID        string `json:"run_id"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	// Provider names the provider the run's model calls went to ("" before providers existed).
	Provider         string `json:"provider"`
	SystemPromptHash string `json:"system_prompt_hash"`
	// Limits are the limits the run ran under, as core.Limits marshals them (core.ParseLimits
	// reads them back). Their JSON name stays "budgets": exports and scripts rely on it.
	Limits json.RawMessage `json:"budgets"`
	Status RunStatus       `json:"status"`
	Output string          `json:"output"`
	Counters
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	Error     string    `json:"error"`
	// Sandbox is the sandbox the run's shell commands ran with, in words
	// (tools.ShellSandbox.Describe); "" for runs recorded before it was kept.
	Sandbox string `json:"sandbox,omitempty"`
	// WorkedMS is the run's own time in milliseconds, the person's waiting for approvals
	// excluded (what its time budget counted); nil when unknown: a run still going, one
	// recorded before it was kept, one a crash ended (Repair). Elapsed reads it.
	WorkedMS *int64 `json:"worked_ms,omitempty"`
	// Mode is "plan" or "execute" (RunModes); Instructions the AGENTS.md files the run's
	// system prompt carried, personal first.
	Mode         RunMode       `json:"mode"`
	Instructions []Instruction `json:"instructions"`
}

// Elapsed is the run's time as its Time meter counts it: its own time when kept (WorkedMS),
// else the wall-clock time from start to end, which counts any waiting for the person too.
func (r Run) Elapsed() time.Duration {
	if r.WorkedMS != nil {
		return time.Duration(*r.WorkedMS) * time.Millisecond
	}
	return r.EndedAt.Sub(r.StartedAt)
}

// RunMode says whether a run was planning (only read-only tools run) or executing.
type RunMode string

// Run modes.
const (
	ModePlan    RunMode = "plan"
	ModeExecute RunMode = "execute"
)

// Valid reports whether m is one of the run modes.
func (m RunMode) Valid() bool { return m == ModePlan || m == ModeExecute }

// Instruction is one instruction file (AGENTS.md) a run's system prompt carried: where it was
// read from, the SHA-256 of the bytes read, its size, and whether it was cut to the limit.
type Instruction struct {
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

// NewRun starts a run. Limits is the JSON of the run's core.Limits (empty means {}).
type NewRun struct {
	// ID is the run's id: "" makes a new one (see NewRunID).
	ID               string
	SessionID        string
	Model            string
	Provider         string // see Run.Provider
	SystemPromptHash string
	Limits           json.RawMessage
	Sandbox          string  // see Run.Sandbox
	Mode             RunMode // "" is execute
	Instructions     []Instruction
	// Harness is run_started's harness_tokens as JSON (nil when not counted); LastHarness
	// reads the last one back.
	Harness json.RawMessage
}

// RunResult is how a run ended. Status must not be empty or "running". It carries no
// counters: a run's turns, tool calls, tokens and cost are the sum of its rows (RunCounters).
type RunResult struct {
	Status RunStatus `json:"status"`
	Output string    `json:"output"`
	Error  string    `json:"error"`
	// Worked is the run's own time (Run.WorkedMS): the runner's core counts it.
	Worked time.Duration `json:"-"`
}

const runCols = `id, session_id, model, system_prompt_hash, budgets, status, output, turns, tool_calls,
	input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, started_at, coalesce(ended_at, 0), error,
	sandbox, mode, instructions, provider, worked_ms`

func scanRun(r scanner) (Run, error) {
	var run Run
	var budgets, instructions string
	var started, ended int64
	var worked sql.NullInt64
	err := r.Scan(&run.ID, &run.SessionID, &run.Model, &run.SystemPromptHash, &budgets, &run.Status, &run.Output,
		&run.Turns, &run.ToolCalls, &run.InputTokens, &run.OutputTokens, &run.CacheReadTokens, &run.CacheWriteTokens,
		&run.CostUSD, &started, &ended, &run.Error,
		&run.Sandbox, &run.Mode, &instructions, &run.Provider, &worked)
	if err == nil {
		err = json.Unmarshal([]byte(instructions), &run.Instructions)
	}
	if run.Instructions == nil {
		run.Instructions = []Instruction{}
	}
	run.Limits, run.StartedAt = json.RawMessage(budgets), fromMS(started)
	if ended != 0 {
		run.EndedAt = fromMS(ended)
	}
	if worked.Valid {
		run.WorkedMS = &worked.Int64
	}
	return run, err
}

// StartRun records a new running run on a session. It fails with
// ErrSessionBusy while another run on the session is running in a live
// process, and with ErrNotFound for an unknown session.
func (db *DB) StartRun(ctx context.Context, n NewRun) (Run, error) {
	run, _, err := db.StartRunWith(ctx, n)
	return run, err
}

// StartRunWith is StartRun and then Append of chunks to the run, in one transaction (one
// durable commit): the runner stores a run's row with its first rows, normally the prompt.
func (db *DB) StartRunWith(ctx context.Context, n NewRun, chunks ...NewChunk) (Run, []Chunk, error) {
	budgets := json.RawMessage("{}")
	if len(n.Limits) > 0 {
		if !json.Valid(n.Limits) {
			return Run{}, nil, fmt.Errorf("start run on session %s: %w: limits are not JSON", n.SessionID, ErrInvalid)
		}
		budgets = n.Limits
	}
	mode, instr, err := runMeta(n.Mode, n.Instructions)
	if err != nil {
		return Run{}, nil, fmt.Errorf("start run on session %s: %w", n.SessionID, err)
	}
	ps, err := prepareRows(n.SessionID, chunks)
	if err != nil {
		return Run{}, nil, err
	}
	if n.ID == "" {
		n.ID = newID()
	}
	run := Run{ID: n.ID, SessionID: n.SessionID, Model: n.Model, Provider: n.Provider, SystemPromptHash: n.SystemPromptHash,
		Limits: budgets, Status: RunRunning, StartedAt: fromMS(db.nowMS()), Mode: mode, Instructions: n.Instructions,
		Sandbox: n.Sandbox}
	if run.Instructions == nil {
		run.Instructions = []Instruction{}
	}
	var added []Chunk
	err = db.tx(ctx, func(wtx *sql.Tx) error {
		tx := db.cached(wtx) // the runner starts a run with every prompt: prepared once
		if err := db.checkIdle(ctx, tx, n.SessionID); err != nil {
			return err
		}
		origin := db.runOrigin()
		_, err = tx.ExecContext(ctx, `INSERT INTO runs(id, session_id, model, system_prompt_hash, budgets, status, started_at, pid, host,
			sandbox, mode, instructions, provider, origin, origin_client, harness_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, run.ID, run.SessionID, run.Model, run.SystemPromptHash, string(budgets),
			run.Status, run.StartedAt.UnixMilli(), db.pid, db.host, run.Sandbox, mode, instr, run.Provider, origin.Kind, origin.Client, string(n.Harness))
		if err == nil && len(chunks) > 0 {
			added, err = db.appendTx(ctx, wtx, n.SessionID, run.ID, chunks, ps)
		}
		return err
	})
	if err != nil {
		return Run{}, nil, fmt.Errorf("start run on session %s: %w", n.SessionID, err)
	}
	return run, added, nil
}

// NewRunID makes an id for NewRun.ID, for a run whose row is written later (StartRunWith).
func NewRunID() string { return newID() }

// CheckIdle says, without writing, whether StartRun could start a run on the session now:
// ErrNotFound for an unknown session, ErrSessionBusy while a live process runs one. The
// runner asks when a run's row is to be written later with its first rows; StartRunWith
// checks again in its transaction.
func (db *DB) CheckIdle(ctx context.Context, sessionID string) error {
	err := db.read(ctx, func(tx execer) error { return db.checkIdle(ctx, tx, sessionID) })
	if err != nil {
		return fmt.Errorf("start run on session %s: %w", sessionID, err)
	}
	return nil
}

func (db *DB) checkIdle(ctx context.Context, tx execer, sessionID string) error {
	if _, _, err := sessionTail(ctx, tx, sessionID); err != nil {
		return err
	}
	live, err := db.liveRun(ctx, tx, sessionID)
	if err != nil {
		return err
	}
	if live != "" {
		return fmt.Errorf("%w (run %s)", ErrSessionBusy, live)
	}
	return nil
}

// FinishRun records how a running run ended. Any tool call of the session
// still without a result gets a synthesized error result in the same
// transaction (so a run can never end leaving the next request invalid);
// those rows are returned. Finishing a run twice is ErrInvalid.
func (db *DB) FinishRun(ctx context.Context, runID string, res RunResult) (Run, []Chunk, error) {
	if res.Status == "" || res.Status == RunRunning {
		return Run{}, nil, fmt.Errorf("finish run %s: %w: status %q", runID, ErrInvalid, res.Status)
	}
	var run Run
	var added []Chunk
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		run, added, err = db.finishTx(ctx, tx, runID, res)
		return err
	})
	if err != nil {
		return Run{}, nil, fmt.Errorf("finish run %s: %w", runID, err)
	}
	return run, added, nil
}

// finishTx is FinishRun's work inside the caller's write transaction.
func (db *DB) finishTx(ctx context.Context, wtx *sql.Tx, runID string, res RunResult) (Run, []Chunk, error) {
	tx := db.cached(wtx) // every run ends here: its statements are prepared once
	run, err := scanRun(tx.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, runID))
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Run{}, nil, fmt.Errorf("run %q: %w", runID, ErrNotFound)
		}
		return Run{}, nil, err
	}
	if run.Status != RunRunning {
		return Run{}, nil, fmt.Errorf("%w: run already ended as %s", ErrInvalid, run.Status)
	}
	now := db.nowMS()
	added, err := db.answerPending(ctx, tx, run.SessionID, runID,
		"interrupted: the run ended ("+string(res.Status)+") before this tool call returned a result", now)
	if err != nil {
		return Run{}, nil, err
	}
	if run.Counters, err = rebuildCounters(ctx, tx, run.SessionID, runID); err != nil {
		return Run{}, nil, err
	}
	worked := max(res.Worked, 0).Milliseconds()
	_, err = tx.ExecContext(ctx, `UPDATE runs SET status = ?, output = ?, ended_at = ?, error = ?, worked_ms = ? WHERE id = ?`,
		res.Status, res.Output, now, res.Error, worked, runID)
	run.Status, run.Output, run.Error, run.EndedAt, run.WorkedMS = res.Status, res.Output, res.Error, fromMS(now), &worked
	return run, added, err
}

// ListRuns returns a session's runs, oldest first.
func (db *DB) ListRuns(ctx context.Context, sessionID string) ([]Run, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+runCols+` FROM runs WHERE session_id = ? ORDER BY started_at, rowid`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("list runs of session %s: %w", sessionID, classify(err))
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		run, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs of session %s: %w", sessionID, err)
		}
		out = append(out, run)
	}
	return out, rows.Err()
}

// LastRun returns the session's latest run, false when it has none. It reads one row of the
// runs_session index, however many runs the session has had.
func (db *DB) LastRun(ctx context.Context, sessionID string) (Run, bool, error) {
	run, err := scanRun(db.sql.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE session_id = ?
		ORDER BY started_at DESC, rowid DESC LIMIT 1`, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, false, nil
	}
	if err != nil {
		return Run{}, false, fmt.Errorf("last run of session %s: %w", sessionID, classify(err))
	}
	return run, true, nil
}

// answerPending appends an error tool_result for every pending call of the
// session, with content starting "interrupted".
func (db *DB) answerPending(ctx context.Context, tx execer, sessionID, runID, content string, now int64) ([]Chunk, error) {
	last, pending, err := sessionTail(ctx, tx, sessionID)
	if err != nil || len(pending) == 0 {
		return nil, err
	}
	var out []Chunk
	for _, p := range pending {
		last++
		text, err := interruptedFor(ctx, tx, sessionID, p.ID, content)
		if err != nil {
			return nil, err
		}
		raw, err := marshal(ToolResultPayload{CallID: p.ID, Name: p.Name, Content: text, IsError: true})
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunks(session_id, seq, kind, payload, run_id, created_at)
			VALUES (?, ?, 'tool_result', ?, ?, ?)`, sessionID, last, string(raw), runID, now); err != nil {
			return nil, err
		}
		out = append(out, Chunk{SessionID: sessionID, Seq: last, Kind: KindToolResult, Payload: raw, RunID: runID, CreatedAt: fromMS(now)})
	}
	return out, setTail(ctx, tx, sessionID, last, nil, now)
}

// runMeta checks a run's mode ("" is execute) and encodes its instruction files.
func runMeta(mode RunMode, files []Instruction) (RunMode, string, error) {
	if mode == "" {
		mode = ModeExecute
	}
	if !mode.Valid() {
		return "", "", fmt.Errorf("%w: run mode %q (want plan or execute)", ErrInvalid, mode)
	}
	if files == nil {
		files = []Instruction{}
	}
	b, err := json.Marshal(files)
	return mode, string(b), err
}

// Counters are what a run (or a session) used: the core's type (core.Counters), one type from
// the run's running count to its row. A run's counters are the sum of its rows' usage: Append
// adds each row's share in the same transaction as the row, so a kill loses nothing; FinishRun
// and Repair recompute them from the rows (RunCounters), so they equal the journal by
// construction.
type Counters = core.Counters

// rowCounters is one row's share of its run's counters: an assistant row is a model call
// with its tool calls; a usage row a model call that left no other row; a summary row the
// spend of its summary call (not a turn).
func rowCounters(v any) Counters {
	var c Counters
	var u *Usage
	switch p := v.(type) {
	case *AssistantPayload:
		c.Turns, c.ToolCalls, u = 1, len(p.ToolCalls), p.Usage
	case *UsagePayload:
		c.Turns, u = 1, &p.Usage
	case *SummaryPayload:
		u = p.Usage
	}
	if u != nil {
		c.InputTokens, c.OutputTokens, c.CostUSD = u.InputTokens, u.OutputTokens, u.CostUSD
		c.CacheReadTokens, c.CacheWriteTokens = u.CacheReadTokens, u.CacheWriteTokens
	}
	return c
}

// addCounters adds d to the run's counters (Append, in the rows' transaction).
func addCounters(ctx context.Context, tx execer, sessionID, runID string, d Counters) error {
	if runID == "" || d.IsZero() {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE runs SET turns = turns + ?, tool_calls = tool_calls + ?, input_tokens = input_tokens + ?,
		output_tokens = output_tokens + ?, cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
		cost_usd = cost_usd + ? WHERE id = ? AND session_id = ?`, d.Turns, d.ToolCalls, d.InputTokens, d.OutputTokens,
		d.CacheReadTokens, d.CacheWriteTokens, d.CostUSD, runID, sessionID)
	return err
}

// RunCounters sums the rows of a run: what its counters must equal.
func (db *DB) RunCounters(ctx context.Context, sessionID, runID string) (Counters, error) {
	var c Counters
	err := db.read(ctx, func(tx execer) error {
		var err error
		c, err = countRows(ctx, tx, sessionID, runID)
		return err
	})
	return c, err
}

func countRows(ctx context.Context, tx execer, sessionID, runID string) (Counters, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, kind, payload FROM chunks INDEXED BY chunks_run
		WHERE run_id = ? AND session_id = ? AND kind IN ('assistant', 'usage', 'summary')`, runID, sessionID)
	if err != nil {
		return Counters{}, err
	}
	defer rows.Close()
	var c Counters
	for rows.Next() {
		var seq int64
		var kind Kind
		var payload string
		if err := rows.Scan(&seq, &kind, &payload); err != nil {
			return Counters{}, err
		}
		v, err := decodePayload(kind, json.RawMessage(payload))
		if err != nil {
			return Counters{}, fmt.Errorf("session %s row %d: %w", sessionID, seq, err)
		}
		c = c.Plus(rowCounters(v))
	}
	return c, rows.Err()
}

// rebuildCounters sets the run's counters to the sum of its rows and returns them.
func rebuildCounters(ctx context.Context, tx execer, sessionID, runID string) (Counters, error) {
	c, err := countRows(ctx, tx, sessionID, runID)
	if err != nil {
		return Counters{}, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET turns = ?, tool_calls = ?, input_tokens = ?, output_tokens = ?,
		cache_read_tokens = ?, cache_write_tokens = ?, cost_usd = ? WHERE id = ?`, c.Turns, c.ToolCalls, c.InputTokens,
		c.OutputTokens, c.CacheReadTokens, c.CacheWriteTokens, c.CostUSD, runID)
	return c, err
}

// LastHarness is the harness_tokens (NewRun.Harness) of the session's last run that recorded
// them, and that run's id; nil and "" when none did.
func (db *DB) LastHarness(ctx context.Context, sessionID string) (json.RawMessage, string, error) {
	var h, runID string
	err := db.read(ctx, func(tx execer) error {
		return tx.QueryRowContext(ctx, `SELECT harness_tokens, id FROM runs WHERE session_id = ? AND harness_tokens != ''
			ORDER BY started_at DESC, rowid DESC LIMIT 1`, sessionID).Scan(&h, &runID)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("harness tokens of session %s: %w", sessionID, classify(err))
	}
	return json.RawMessage(h), runID, nil
}
