package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// ExportFormat is the version written in an export's first line.
const ExportFormat = 1

// Export lines. The first line is the session, then its rows in seq
// order, then its runs. Every line carries "type".
type (
	exportHeader struct {
		Type    string  `json:"type"` // "session"
		Format  int     `json:"format"`
		Session Session `json:"session"`
	}
	exportRow struct {
		Type      string          `json:"type"` // "chunk"
		Seq       int64           `json:"seq"`
		Kind      Kind            `json:"kind"`
		Payload   json.RawMessage `json:"payload"`
		RunID     string          `json:"run_id"`
		CreatedAt time.Time       `json:"created_at"`
	}
	exportRun struct {
		Type string `json:"type"` // "run"
		Run
	}
)

// Querier is the transaction (or read snapshot) an export or import
// extension runs in.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ExportOptions extend an export with lines of other packages' tables
// (backend/checkpoint's change records), read in the same snapshot.
type ExportOptions struct {
	// Extra is called after the runs; each emit writes one JSON line, which
	// must carry a "type" other than session, chunk or run.
	Extra func(ctx context.Context, q Querier, sessionID string, emit func(v any) error) error
}

// ImportOptions accept the extra lines of ExportOptions.
type ImportOptions struct {
	// Types are the extra line types accepted; any other is ErrBadImport.
	Types []string
	// Extra receives those lines in file order, inside the import's
	// transaction, once the session and its rows are stored; an error
	// rolls back the whole import.
	Extra func(ctx context.Context, q Querier, s Session, lines []json.RawMessage) error
}

// Export writes a session as JSON Lines: {"type":"session",...} with its
// metadata and lineage, one {"type":"chunk",...} per row with the payload as
// stored, one {"type":"run",...} per run. Settings (and so no key) are
// never part of it. It reads one consistent snapshot without blocking writers.
func (db *DB) Export(ctx context.Context, id string, w io.Writer) error {
	return db.ExportWith(ctx, id, w, ExportOptions{})
}

// ExportWith is Export followed by the lines opt.Extra emits.
func (db *DB) ExportWith(ctx context.Context, id string, w io.Writer, opt ExportOptions) error {
	err := db.read(ctx, func(tx execer) error {
		s, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %q: %w", id, ErrNotFound)
		}
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(w)
		if err := writeLine(bw, exportHeader{Type: "session", Format: ExportFormat, Session: s}); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, kind, payload, run_id, created_at FROM chunks WHERE session_id = ? ORDER BY seq`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r := exportRow{Type: "chunk"}
			var payload string
			var created int64
			if err := rows.Scan(&r.Seq, &r.Kind, &payload, &r.RunID, &created); err != nil {
				return err
			}
			r.Payload, r.CreatedAt = json.RawMessage(payload), fromMS(created)
			if err := writeLine(bw, r); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		runs, err := tx.QueryContext(ctx, `SELECT `+runCols+` FROM runs WHERE session_id = ? ORDER BY started_at, rowid`, id)
		if err != nil {
			return err
		}
		defer runs.Close()
		for runs.Next() {
			run, err := scanRun(runs)
			if err != nil {
				return err
			}
			if err := writeLine(bw, exportRun{Type: "run", Run: run}); err != nil {
				return err
			}
		}
		if err := runs.Err(); err != nil {
			return err
		}
		if err := exportImages(ctx, tx, id, func(v any) error { return writeLine(bw, v) }); err != nil {
			return err
		}
		if opt.Extra != nil {
			if err := opt.Extra(ctx, tx, id, func(v any) error { return writeLine(bw, v) }); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	return nil
}

func writeLine(w *bufio.Writer, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// Import reads an Export and stores it as a new session (new id, new run
// ids; title, workspace, model, lineage — parent_id, fork_seq and, for a child
// session, parent_call_id — rows with their times kept). The
// whole file is checked first: a bad line is ErrBadImport naming the line,
// and nothing is written. Runs recorded as running come back interrupted,
// and tool calls the export left unanswered get "interrupted" error results.
func (db *DB) Import(ctx context.Context, r io.Reader) (Session, error) {
	return db.ImportWith(ctx, r, ImportOptions{})
}

// ImportWith is Import accepting the extra line types of opt.
func (db *DB) ImportWith(ctx context.Context, r io.Reader, opt ImportOptions) (Session, error) {
	hdr, rows, runs, extra, err := readExport(r, append(slices.Clone(opt.Types), "image"))
	if err != nil {
		return Session{}, err // ErrBadImport naming the line: the caller names the file
	}
	var s Session
	err = db.tx(ctx, func(tx *sql.Tx) error {
		var pending []pendingCall
		open := make([]int, len(rows)+1) // open[seq]: calls unanswered after row seq
		for _, row := range rows {
			if sp, ok := row.v.(*SummaryPayload); ok && sp.ThroughSeq >= 1 && sp.ThroughSeq < row.Seq && open[sp.ThroughSeq] > 0 {
				return fmt.Errorf("%w: line %d: the summary through seq %d separates tool calls from their results", ErrBadImport, row.line, sp.ThroughSeq)
			}
			if pending, err = step(pending, row.kind, row.v, row.Seq); err != nil {
				return fmt.Errorf("%w: line %d: %v", ErrBadImport, row.line, err)
			}
			open[row.Seq] = len(pending)
		}
		if pending == nil {
			pending = []pendingCall{}
		}
		pj, _ := json.Marshal(pending)
		in := hdr.Session
		if s, err = db.createSession(ctx, tx, Session{Title: in.Title, Workspace: in.Workspace, Model: in.Model, Provider: in.Provider,
			ParentID: in.ParentID, ParentCallID: in.ParentCallID, ForkSeq: in.ForkSeq}, string(pj), int64(len(rows))); err != nil {
			return err
		}
		newRun := map[string]string{}
		now := db.nowMS()
		for _, run := range runs {
			id := newID()
			newRun[run.ID] = id
			status, ended := run.Status, run.EndedAt
			if status == RunRunning {
				status, ended = RunInterrupted, fromMS(now)
			}
			var endedMS any
			if !ended.IsZero() {
				endedMS = ended.UnixMilli()
			}
			budgets := run.Limits
			if len(budgets) == 0 {
				budgets = json.RawMessage("{}")
			}
			mode, instr, err := runMeta(run.Mode, run.Instructions) // exports before 0004 have neither
			if err != nil {
				return fmt.Errorf("%w: run %s: %v", ErrBadImport, run.ID, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO runs(id, session_id, model, system_prompt_hash, budgets, status, output,
				turns, tool_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, started_at, ended_at, error,
				sandbox, mode, instructions, provider, worked_ms)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, s.ID, run.Model, run.SystemPromptHash, string(budgets),
				status, run.Output, run.Turns, run.ToolCalls, run.InputTokens, run.OutputTokens, run.CacheReadTokens, run.CacheWriteTokens,
				run.CostUSD, run.StartedAt.UnixMilli(), endedMS, run.Error, run.Sandbox, mode, instr, run.Provider, run.WorkedMS); err != nil {
				return err
			}
		}
		// Images first: a row naming an image neither in the file nor stored is refused.
		if extra, err = importImages(ctx, tx, extra, now); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO chunks(session_id, seq, kind, payload, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, row := range rows {
			if err := checkImages(ctx, tx, row.v); err != nil {
				return fmt.Errorf("%w: line %d: %v", ErrBadImport, row.line, err)
			}
			if err := checkExclusion(ctx, tx, s.ID, row.v); err != nil { // the rows it names are in by now
				return fmt.Errorf("%w: line %d: %v", ErrBadImport, row.line, err)
			}
			runID := row.RunID
			if id, ok := newRun[runID]; ok {
				runID = id
			}
			if _, err := stmt.ExecContext(ctx, s.ID, row.Seq, string(row.Kind), string(row.raw), runID, row.CreatedAt.UnixMilli()); err != nil {
				return err
			}
		}
		// An export taken mid-run ends with calls nobody will answer.
		if _, err = db.answerPending(ctx, tx, s.ID, "",
			"interrupted: the session was exported before this tool call returned a result", now); err != nil {
			return err
		}
		if err := indexBacklog(ctx, tx); err != nil { // a bulk insert: indexed in its own commit
			return err
		}
		if opt.Extra != nil && len(extra) > 0 {
			return opt.Extra(ctx, tx, s, extra)
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrBadImport) {
		return Session{}, fmt.Errorf("store the imported session: %w", err)
	}
	return s, err
}

type importRow struct {
	exportRow
	line int // the row's line in the file, for errors
	kind Kind
	raw  json.RawMessage
	v    any
}

// readExport parses and checks a whole export before anything is written.
// Lines of the extra types are returned as they are, for ImportOptions.Extra.
func readExport(r io.Reader, types []string) (exportHeader, []importRow, []Run, []json.RawMessage, error) {
	var hdr exportHeader
	var rows []importRow
	var runs []Run
	var extra []json.RawMessage
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return hdr, nil, nil, nil, fmt.Errorf("read line %d: %w", n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				break
			}
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: line %d: %s", ErrBadImport, n, fmt.Sprintf(format, args...))
		}
		var probe struct {
			Type string `json:"type"`
		}
		if jerr := json.Unmarshal(line, &probe); jerr != nil {
			return hdr, nil, nil, nil, bad("not JSON: %v", jerr)
		}
		if n == 1 || hdr.Type == "" {
			if probe.Type != "session" {
				return hdr, nil, nil, nil, bad("want the session line first, got type %q", probe.Type)
			}
			if jerr := json.Unmarshal(line, &hdr); jerr != nil {
				return hdr, nil, nil, nil, bad("session: %v", jerr)
			}
			if hdr.Format < 1 || hdr.Format > ExportFormat {
				return hdr, nil, nil, nil, bad("export format %d, this build reads up to %d", hdr.Format, ExportFormat)
			}
			if hdr.Session.ParentCallID != "" && hdr.Session.ParentID == "" {
				return hdr, nil, nil, nil, bad("session: parent_call_id %q without parent_id", hdr.Session.ParentCallID)
			}
		} else {
			switch probe.Type {
			case "chunk":
				var row importRow
				if jerr := json.Unmarshal(line, &row.exportRow); jerr != nil {
					return hdr, nil, nil, nil, bad("row: %v", jerr)
				}
				if want := int64(len(rows) + 1); row.Seq != want {
					return hdr, nil, nil, nil, bad("row seq %d, want %d (rows must be complete and in order)", row.Seq, want)
				}
				raw, v, cerr := canonical(row.Kind, row.Payload)
				if cerr != nil {
					return hdr, nil, nil, nil, bad("row %d (%s): %v", row.Seq, row.Kind, cerr)
				}
				row.line, row.kind, row.raw, row.v = n, row.Kind, raw, v
				rows = append(rows, row)
			case "run":
				var run exportRun
				if jerr := json.Unmarshal(line, &run); jerr != nil {
					return hdr, nil, nil, nil, bad("run: %v", jerr)
				}
				if run.Limits != nil && !json.Valid(run.Limits) {
					return hdr, nil, nil, nil, bad("run budgets are not JSON")
				}
				runs = append(runs, run.Run)
			case "session":
				return hdr, nil, nil, nil, bad("a second session line")
			default:
				if slices.Contains(types, probe.Type) {
					extra = append(extra, json.RawMessage(bytes.Clone(bytes.TrimSpace(line))))
					break
				}
				return hdr, nil, nil, nil, bad("unknown line type %q", probe.Type)
			}
		}
		if err == io.EOF {
			break
		}
	}
	if hdr.Type == "" {
		return hdr, nil, nil, nil, fmt.Errorf("%w: empty file", ErrBadImport)
	}
	return hdr, rows, runs, extra, nil
}
