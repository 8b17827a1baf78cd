package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
)

// Problem is one thing `loopdesk db check` found, with the session and row it affects
// (SessionID "" and Seq 0 when SQLite's report names neither).
type Problem struct {
	// Problem is the kind: integrity (SQLite's integrity check), foreign_key, unreadable_row
	// (a row of the session that cannot be read), unreadable_session (rows whose session
	// cannot be read), payload (a row whose payload does not parse as its kind), unpaired (a
	// row that breaks tool-call pairing), pending (calls left without a result that the
	// session does not list as waiting), schema (the schema is ahead of this build).
	Problem   string `json:"problem"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
	Detail    string `json:"detail"`
}

// Check examines the database at path without writing to it: SQLite's integrity check (which
// includes the quick check), the foreign keys, and the journal's own invariants — every row
// of every session readable, seqs dense from 1 to the session's last, every payload parses as
// its kind, every tool call has exactly one result or is listed as pending. It returns every
// problem found (none for a healthy file); err is for a file it could not examine at all.
func Check(ctx context.Context, path string) ([]Problem, error) {
	if _, err := statFiles(path); err != nil {
		return nil, fmt.Errorf("check database %s: %w", path, err)
	}
	conn, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if p, _ := headerProblem(path, fileSize(path)); p != "" {
		return []Problem{{Problem: "integrity", Detail: p}}, nil
	}
	var out []Problem
	if err := checkSchema(ctx, conn, &out); err != nil {
		return out, err
	}
	lines, err := pragmaLines(ctx, conn, "PRAGMA integrity_check(1000)")
	if err != nil && !damage(err) {
		return out, fmt.Errorf("check database %s: %w", path, err)
	}
	if err != nil {
		lines = append(lines, err.Error())
	}
	for _, l := range lines {
		out = append(out, Problem{Problem: "integrity", Detail: l})
	}
	j, err := readJournal(ctx, conn)
	if err != nil {
		return out, fmt.Errorf("check database %s: %w", path, err)
	}
	out = append(out, j.problems()...)
	fk, err := foreignKeys(ctx, conn, j)
	if err != nil {
		return out, fmt.Errorf("check database %s: %w", path, err)
	}
	return append(out, fk...), nil
}

func fileSize(path string) int64 {
	id, _ := statID(path)
	return id.Size
}

func checkSchema(ctx context.Context, conn *sql.DB, out *[]Problem) error {
	var version int
	err := conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version)
	if err != nil {
		if damage(err) {
			*out = append(*out, Problem{Problem: "integrity", Detail: "the schema cannot be read: " + err.Error()})
			return nil
		}
		return err
	}
	if version > SchemaVersion() {
		*out = append(*out, Problem{Problem: "schema", Detail: fmt.Sprintf(
			"schema version %d, this Loopdesk knows up to %d: upgrade Loopdesk", version, SchemaVersion())})
	}
	return nil
}

// journal is what a walk of the sessions and rows could read.
type journal struct {
	sessions map[string]sessionTailRow
	rows     map[string][]rowMeta // by session, in seq order once sorted
	rowGaps  []gap                // rowids of chunks that could not be read
	sessGaps []gap
}

type sessionTailRow struct {
	lastSeq int64
	pending string
}

// rowMeta is what the invariants need of a row: its place, kind, and the decoded parts that
// pairing looks at (the rest of the payload is dropped as soon as it parsed).
type rowMeta struct {
	rowid int64
	seq   int64
	kind  Kind
	value any   // a payload of the kind's type holding only what step reads; nil if it did not parse
	err   error // why the payload did not parse
}

func readJournal(ctx context.Context, conn *sql.DB) (*journal, error) {
	j := &journal{sessions: map[string]sessionTailRow{}, rows: map[string][]rowMeta{}}
	var err error
	j.sessGaps, err = walkRows(ctx, conn, "sessions", "id, last_seq, pending", func(_ *int64, scan func(...any) error) error {
		var id string
		var t sessionTailRow
		if err := scan(&id, &t.lastSeq, &t.pending); err != nil {
			return err
		}
		j.sessions[id] = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	j.rowGaps, err = walkRows(ctx, conn, "chunks", "session_id, seq, kind, payload", func(rowid *int64, scan func(...any) error) error {
		var sid, payload string
		m := rowMeta{}
		if err := scan(&sid, &m.seq, &m.kind, &payload); err != nil {
			return err
		}
		m.rowid = *rowid
		v, err := decodePayload(m.kind, json.RawMessage(payload))
		m.value, m.err = slim(v), err
		j.rows[sid] = append(j.rows[sid], m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, rs := range j.rows {
		sort.Slice(rs, func(a, b int) bool { return rs[a].seq < rs[b].seq })
	}
	return j, nil
}

// slim keeps of a decoded payload what pairing reads, so a check holds little per row.
func slim(v any) any {
	switch p := v.(type) {
	case *AssistantPayload:
		calls := make([]ToolCall, len(p.ToolCalls))
		for i, c := range p.ToolCalls {
			calls[i] = ToolCall{ID: c.ID, Name: c.Name}
		}
		return &AssistantPayload{ToolCalls: calls}
	case *ToolResultPayload:
		return &ToolResultPayload{CallID: p.CallID}
	case *ApprovalPayload:
		return &ApprovalPayload{CallID: p.CallID, Decision: p.Decision, By: p.By}
	case *HookPayload:
		return &HookPayload{Event: p.Event, Command: p.Command}
	case *SummaryPayload:
		return &SummaryPayload{ThroughSeq: p.ThroughSeq, FromSeq: p.FromSeq, Undoes: p.Undoes}
	}
	return v
}

// problems lists what the rows say against the journal's invariants, session by session.
func (j *journal) problems() []Problem {
	var out []Problem
	ids := make([]string, 0, len(j.rows)+len(j.sessions))
	for id := range j.sessions {
		ids = append(ids, id)
	}
	for id := range j.rows {
		if _, ok := j.sessions[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, j.sessionProblems(id)...)
	}
	if len(j.sessGaps) > 0 && len(ids) == 0 {
		out = append(out, Problem{Problem: "unreadable_session", Detail: "the sessions table cannot be read"})
	}
	return out
}

func (j *journal) sessionProblems(id string) []Problem {
	var out []Problem
	add := func(problem string, seq int64, format string, args ...any) {
		out = append(out, Problem{Problem: problem, SessionID: id, Seq: seq, Detail: fmt.Sprintf(format, args...)})
	}
	t, known := j.sessions[id]
	rows := j.rows[id]
	if !known {
		add("unreadable_session", 0, "%d rows belong to a session whose own record cannot be read", len(rows))
		return out
	}
	have := make(map[int64]bool, len(rows))
	for _, r := range rows {
		have[r.seq] = true
	}
	for seq := int64(1); seq <= t.lastSeq; seq++ {
		if !have[seq] {
			add("unreadable_row", seq, "row %d of %d cannot be read", seq, t.lastSeq)
		}
	}
	var pending []pendingCall
	broken := false
	for _, r := range rows {
		if r.seq > t.lastSeq {
			add("unreadable_row", r.seq, "row %d is past the session's last row %d", r.seq, t.lastSeq)
		}
		if r.err != nil {
			add("payload", r.seq, "%v", r.err)
			broken = true
			continue
		}
		if broken || !have[r.seq-1] && r.seq > 1 {
			// After a row that could not be read or parsed, pairing cannot be followed.
			broken, pending = true, nil
			continue
		}
		next, err := step(pending, r.kind, r.value, r.seq)
		if err != nil {
			add("unpaired", r.seq, "%v", err)
			broken = true
			continue
		}
		pending = next
	}
	if !broken {
		var listed []pendingCall
		_ = json.Unmarshal([]byte(t.pending), &listed)
		if !samePending(pending, listed) {
			add("pending", t.lastSeq, "%d call(s) wait for a result, the session lists %d", len(pending), len(listed))
		}
	}
	return out
}

func samePending(a, b []pendingCall) bool {
	if len(a) != len(b) {
		return false
	}
	ids := map[string]bool{}
	for _, c := range a {
		ids[c.ID] = true
	}
	for _, c := range b {
		if !ids[c.ID] {
			return false
		}
	}
	return true
}

// foreignKeys reports rows whose parent is missing, naming the session of a chunk or run.
func foreignKeys(ctx context.Context, conn *sql.DB, j *journal) ([]Problem, error) {
	rows, err := conn.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		if damage(err) {
			return []Problem{{Problem: "foreign_key", Detail: "the foreign keys cannot be checked: " + err.Error()}}, nil
		}
		return nil, err
	}
	defer rows.Close()
	var out []Problem
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return nil, err
		}
		p := Problem{Problem: "foreign_key", Detail: fmt.Sprintf("%s row %d refers to a missing %s", table, rowid.Int64, parent)}
		if table == "chunks" {
			p.SessionID, p.Seq = j.rowPlace(rowid.Int64)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil && !damage(err) {
		return nil, err
	}
	return out, nil
}

func (j *journal) rowPlace(rowid int64) (string, int64) {
	for sid, rs := range j.rows {
		for _, r := range rs {
			if r.rowid == rowid {
				return sid, r.seq
			}
		}
	}
	return "", 0
}
