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

// Kind is the type of a row.
type Kind string

// The row kinds. The set is closed: Append refuses anything else.
const (
	KindUser       Kind = "user"
	KindAssistant  Kind = "assistant"
	KindToolResult Kind = "tool_result"
	KindApproval   Kind = "approval"
	KindSummary    Kind = "summary"
	KindSystem     Kind = "system"
	// KindRestore records that files of the session's folder were restored
	// (backend/checkpoint). It is not sent to the model.
	KindRestore Kind = "restore"
	// KindNote is something the person did to the model's world (a reverted hunk, an edited
	// plan, a hook's context) that the model must hear once, framed as Loopdesk's note and
	// never as the person's words (Messages frames it).
	KindNote Kind = "note"
	// KindUsage is the spend of a model call that left no other row (UsagePayload).
	KindUsage Kind = "usage"
	// KindHook records one run of a user hook (HookPayload, backend/hooks): what ran, how it
	// ended and what it decided. Not sent to the model; allowed between a tool call and its
	// result, since PreToolUse hooks run there.
	KindHook Kind = "hook"
)

// Kinds lists every row kind, in declaration order.
var Kinds = []Kind{KindUser, KindAssistant, KindToolResult, KindApproval, KindSummary, KindSystem, KindRestore, KindNote, KindUsage, KindHook, KindImageExcluded}

// NewPayload returns a pointer to a zero payload of the kind's type; false for an unknown
// kind. It is the one table of which payload each kind stores (the page's Row union is
// generated from it).
func NewPayload(kind Kind) (any, bool) {
	switch kind {
	case KindUser:
		return &UserPayload{}, true
	case KindAssistant:
		return &AssistantPayload{}, true
	case KindToolResult:
		return &ToolResultPayload{}, true
	case KindApproval:
		return &ApprovalPayload{}, true
	case KindSummary:
		return &SummaryPayload{}, true
	case KindSystem:
		return &SystemPayload{}, true
	case KindRestore:
		return &RestorePayload{}, true
	case KindNote:
		return &NotePayload{}, true
	case KindUsage:
		return &UsagePayload{}, true
	case KindHook:
		return &HookPayload{}, true
	case KindImageExcluded:
		return &ImageExcludedPayload{}, true
	}
	return nil, false
}

// Chunk is one stored row of a session. Payload is the JSON of the payload
// type matching Kind, exactly as stored.
type Chunk struct {
	SessionID string          `json:"session_id"`
	Seq       int64           `json:"seq"`
	Kind      Kind            `json:"kind"`
	Payload   json.RawMessage `json:"payload"`
	RunID     string          `json:"run_id"`
	CreatedAt time.Time       `json:"created_at"`
}

// UserPayload is a message the person typed. QueuedID names the queued message it
// delivers, if it was queued (QueuedMessage): Append removes that message from the queue in
// the same transaction.
type UserPayload struct {
	Text     string `json:"text"`
	QueuedID string `json:"queued_id,omitempty"`
	// Command names the slash command or skill the text was expanded from ("/review"), ""
	// for a message the person typed (backend/agents).
	Command string `json:"command,omitempty"`
	// Images are the images sent with the message, by blob (blobs.go); Append refuses one
	// that is not stored.
	Images []ImageRef `json:"images,omitempty"`
}

// ToolCall is one call the model asked for. Arguments is the raw string
// exactly as the model sent it (it may not even be valid JSON; the loop
// answers that with an error result, and the row keeps what was sent).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// AssistantPayload is one model turn. Text, Reasoning and ToolCalls are the portable
// projection every provider understands (and the page shows); Raw is the provider's message
// exactly as it was received (assembled from the stream, every field, known or not:
// reasoning_content, reasoning_details, tool_calls[].extra_content, Anthropic thinking blocks
// with their signatures), re-sent unmodified to the provider and model named by Origin. A
// turn whose Origin differs from the request's goes in the portable form.
//
// Usage is what the model call that produced the row cost, written in the same transaction
// as the row: run counters, meters and totals are derived from it (docs/journal.md).
type AssistantPayload struct {
	Text      string          `json:"text"`
	Reasoning string          `json:"reasoning"`
	ToolCalls []ToolCall      `json:"tool_calls"`
	Origin    *Origin         `json:"origin,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"`
	Usage     *Usage          `json:"usage,omitempty"`
	// Stopped: the run was stopped while this turn streamed; Text is what had arrived and the
	// cut turn's calls are not kept. It is sent back like any turn.
	Stopped bool `json:"stopped,omitempty"`
}

// Origin names what produced an assistant turn: the configured provider's name, its wire
// kind ("openai" or "anthropic") and the model. The core's type, stored as it is.
type Origin = core.Origin

// Usage is the usage of one model call: tokens as the provider reported them (cache reads
// and writes are part of the input, reported apart so they can be priced apart) and the cost
// at the prices in force when the call was made. Unreported: the provider sent no usage, so
// the zeros are unknown, not free.
type Usage struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64   `json:"reasoning_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd"`
	Unreported       bool    `json:"unreported,omitempty"`
}

// NotePayload is Loopdesk's own note to the model (KindNote). Source says what made it
// ("hunk_revert", "plan_edit", "hook", ...); Text is what the model reads inside the frame.
type NotePayload struct {
	Source string `json:"source"`
	Text   string `json:"text"`
	// Memories, on a memory note (core.NoteSourceMemory), are the memories in force once it is
	// stored: the next run compares against them (core.NoteMemories). The model reads Text only.
	Memories []core.MemoryRef `json:"memories,omitempty"`
}

// ToolResultPayload answers the tool call CallID. IsError marks failures,
// denials, timeouts and interruptions; Content carries the explanation.
type ToolResultPayload struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	// Sandboxed: the command ran inside the sandbox (docs/sandbox.md).
	Sandboxed bool `json:"sandboxed,omitempty"`
}

// Decision is an approval row's decision: the core's type, one set of values.
type Decision = core.Decision

// Decisions of an approval row.
const (
	DecisionApproved = core.DecisionApproved
	DecisionDenied   = core.DecisionDenied
)

// ApprovalPayload records who decided a pending tool call and how. By is
// "person", "rule:<id>" or "mode:<mode>". It is not sent to the model: a
// denial reaches the model through the call's tool_result.
type ApprovalPayload struct {
	CallID   string   `json:"call_id"`
	Tool     string   `json:"tool"`
	Decision Decision `json:"decision"`
	By       string   `json:"by"`
	Reason   string   `json:"reason"`
	// Rule, when not empty, is the rule the person saved with this answer ("Always allow",
	// "Always deny"), in words (RuleText): it decides such calls from now on. Reason stays
	// what the person typed, so the page never shows the rule as their words.
	Rule string `json:"rule,omitempty"`
	// Arguments, when not empty, are what the person edited the call's
	// arguments to before approving it: what actually ran.
	Arguments string `json:"arguments,omitempty"`
	// Reviewed, in approval mode review, is what the person chose for each proposed hunk of
	// the call, in order ("keep", "drop" or "edit"): Arguments then hold what their choices
	// wrote, not an edit of the call.
	Reviewed []string `json:"reviewed,omitempty"`
	// RequestedAt is when the call started waiting for its answer (zero for a call nobody
	// was asked about, and in rows recorded before it was kept): a person's time to answer
	// runs from it.
	RequestedAt time.Time `json:"requested_at,omitzero"`
}

// SummaryPayload is a compaction: in Messages it replaces every row with
// seq <= ThroughSeq (except system rows) by one user message holding Text.
//
// Two variants share the kind, so the rows a person reads and searches stay one table:
//   - FromSeq > 0 sets an exchange aside: only rows FromSeq..ThroughSeq are replaced, by
//     Text (a note saying so). Used when a session hit the context limit.
//   - Undoes > 0 cancels the summary (or set-aside) row with that seq: the next request
//     carries the rows it replaced again. Its ThroughSeq repeats the cancelled row's.
type SummaryPayload struct {
	Text       string `json:"text"`
	ThroughSeq int64  `json:"through_seq"`
	FromSeq    int64  `json:"from_seq,omitempty"`
	Undoes     int64  `json:"undoes,omitempty"`
	// Usage is the summary call's spend (none for a set-aside or an undo).
	Usage *Usage `json:"usage,omitempty"`
}

// UsagePayload (KindUsage) records a model call that left no assistant or summary row: a
// stream that failed, a request the server refused, a summary call that failed. The spend
// happened, so the journal keeps it. Not sent to the model.
type UsagePayload struct {
	Usage  Usage  `json:"usage"`
	Reason string `json:"reason"`
}

// SystemPayload is a system message carried by the session itself (most
// sessions have none: the agent's system prompt is chosen per run).
type SystemPayload struct {
	Text string `json:"text"`
}

// RestoredPath is one path a restore brought back; Change is the change
// being undone (created, modified, deleted or mode).
type RestoredPath struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// RestorePayload is a restore of the folder's files to their state before
// row ToSeq (only Path when set). Restored lists what changed; Overridden the
// files changed outside since that the person chose to overwrite; Skipped
// the files that could not be brought back (content never stored).
type RestorePayload struct {
	ToSeq      int64          `json:"to_seq"`
	Path       string         `json:"path,omitempty"`
	Restored   []RestoredPath `json:"restored"`
	Overridden []string       `json:"overridden,omitempty"`
	Skipped    []string       `json:"skipped,omitempty"`
}

// NewChunk is a row to append. Payload is one of the *Payload types (value or
// pointer) or anything that marshals to the same JSON; it is stored in the
// canonical form of its kind's type, and unknown fields are refused.
type NewChunk struct {
	Kind    Kind
	Payload any
}

// pendingCall is a tool call still waiting for its result.
type pendingCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// step applies one row to the pending tool calls, refusing any row that
// would make the next model request invalid. seq is the row's own seq.
func step(pending []pendingCall, kind Kind, v any, seq int64) ([]pendingCall, error) {
	find := func(id string) int {
		for i, p := range pending {
			if p.ID == id {
				return i
			}
		}
		return -1
	}
	switch p := v.(type) {
	case *AssistantPayload:
		if len(pending) > 0 {
			return nil, fmt.Errorf("%w: assistant turn while %d tool call(s) wait for results", ErrUnpaired, len(pending))
		}
		next := make([]pendingCall, 0, len(p.ToolCalls))
		seen := map[string]bool{}
		for _, c := range p.ToolCalls {
			if c.ID == "" || c.Name == "" {
				return nil, fmt.Errorf("%w: tool call without id or name", ErrInvalid)
			}
			if seen[c.ID] {
				return nil, fmt.Errorf("%w: duplicate tool call id %q", ErrInvalid, c.ID)
			}
			seen[c.ID] = true
			next = append(next, pendingCall{ID: c.ID, Name: c.Name})
		}
		return next, nil
	case *ToolResultPayload:
		i := find(p.CallID)
		if i < 0 {
			return nil, fmt.Errorf("%w: tool result for call %q, which is not waiting for one", ErrUnpaired, p.CallID)
		}
		return append(pending[:i:i], pending[i+1:]...), nil
	case *ApprovalPayload:
		if find(p.CallID) < 0 {
			return nil, fmt.Errorf("%w: approval for call %q, which is not waiting for one", ErrUnpaired, p.CallID)
		}
		if p.Decision != DecisionApproved && p.Decision != DecisionDenied {
			return nil, fmt.Errorf("%w: approval decision %q (want approved or denied)", ErrInvalid, p.Decision)
		}
		if p.By == "" {
			return nil, fmt.Errorf("%w: approval without who decided", ErrInvalid)
		}
		return pending, nil
	case *HookPayload:
		if p.Event == "" || p.Command == "" {
			return nil, fmt.Errorf("%w: hook row without event or command", ErrInvalid)
		}
		return pending, nil // a PreToolUse hook runs between a call and its result
	case *SummaryPayload:
		if p.ThroughSeq < 1 || p.ThroughSeq >= seq {
			return nil, fmt.Errorf("%w: summary through seq %d, want 1..%d", ErrInvalid, p.ThroughSeq, seq-1)
		}
		if p.FromSeq < 0 || p.FromSeq > p.ThroughSeq || p.Undoes < 0 || p.Undoes >= seq {
			return nil, fmt.Errorf("%w: summary from seq %d, undoes %d", ErrInvalid, p.FromSeq, p.Undoes)
		}
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("%w: %s row while %d tool call(s) wait for results", ErrUnpaired, kind, len(pending))
	}
	return pending, nil
}

// Append adds rows to a session in one transaction: all are stored with
// consecutive seqs after the current last one, or none is. Use one call per
// logical step (an assistant turn with its tool calls; one tool result).
// Rows that would break tool-call pairing are refused with ErrUnpaired.
// The session's updated_at moves to now.
func (db *DB) Append(ctx context.Context, sessionID, runID string, chunks ...NewChunk) ([]Chunk, error) {
	if len(chunks) == 0 {
		return []Chunk{}, nil
	}
	ps, err := prepareRows(sessionID, chunks)
	if err != nil {
		return nil, err
	}
	var out []Chunk
	err = db.tx(ctx, func(wtx *sql.Tx) error {
		out, err = db.appendTx(ctx, wtx, sessionID, runID, chunks, ps)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	return out, nil
}

// preparedRow is a row's payload in canonical form, checked before the transaction.
type preparedRow struct {
	raw json.RawMessage
	v   any
}

func prepareRows(sessionID string, chunks []NewChunk) ([]preparedRow, error) {
	ps := make([]preparedRow, len(chunks))
	for i, c := range chunks {
		raw, v, err := canonical(c.Kind, c.Payload)
		if err != nil {
			return nil, fmt.Errorf("append to session %s: row %d: %w", sessionID, i+1, err)
		}
		ps[i] = preparedRow{raw, v}
	}
	return ps, nil
}

// appendTx is Append's work inside the caller's write transaction.
func (db *DB) appendTx(ctx context.Context, wtx *sql.Tx, sessionID, runID string, chunks []NewChunk, ps []preparedRow) ([]Chunk, error) {
	tx := db.cached(wtx)
	last, pending, err := sessionTail(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	if chunks, ps, err = withHookContext(ctx, tx, sessionID, chunks, ps); err != nil {
		return nil, err
	}
	out := make([]Chunk, 0, len(chunks))
	now := db.nowMS()
	stmt, err := tx.stmt(ctx, `INSERT INTO chunks(session_id, seq, kind, payload, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	var spent Counters
	for i, c := range chunks {
		spent = spent.Plus(rowCounters(ps[i].v))
		seq := last + int64(i) + 1
		if pending, err = step(pending, c.Kind, ps[i].v, seq); err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if err := checkSummary(ctx, tx, sessionID, ps[i].v); err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if err := delivered(ctx, tx, sessionID, ps[i].v); err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if err := checkImages(ctx, tx, ps[i].v); err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if err := checkExclusion(ctx, tx, sessionID, ps[i].v); err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		if _, err := stmt.ExecContext(stmtCtx(ctx), sessionID, seq, string(c.Kind), string(ps[i].raw), runID, now); err != nil {
			return nil, err
		}
		out = append(out, Chunk{SessionID: sessionID, Seq: seq, Kind: c.Kind, Payload: ps[i].raw, RunID: runID, CreatedAt: fromMS(now)})
	}
	if err := addCounters(ctx, tx, sessionID, runID, spent); err != nil {
		return nil, err
	}
	if err := db.noteBacklog(ctx, tx, len(chunks)); err != nil {
		return nil, err
	}
	return out, setTail(ctx, tx, sessionID, last+int64(len(chunks)), pending, now)
}

// checkSummary refuses a summary that would cut a tool turn in half: the
// rows after ThroughSeq must not hold results for calls made before it.
func checkSummary(ctx context.Context, tx execer, sessionID string, v any) error {
	s, ok := v.(*SummaryPayload)
	if !ok || s.ThroughSeq < 1 {
		return nil
	}
	p, err := pendingAt(ctx, tx, sessionID, s.ThroughSeq)
	if err != nil {
		return err
	}
	if len(p) > 0 {
		return fmt.Errorf("%w: summary through seq %d would separate %d tool call(s) from their results", ErrUnpaired, s.ThroughSeq, len(p))
	}
	if s.FromSeq > 1 {
		// A set-aside starts just after a complete step too.
		if p, err = pendingAt(ctx, tx, sessionID, s.FromSeq-1); err != nil {
			return err
		}
		if len(p) > 0 {
			return fmt.Errorf("%w: set-aside from seq %d would separate %d tool call(s) from their results", ErrUnpaired, s.FromSeq, len(p))
		}
	}
	return nil
}

func sessionTail(ctx context.Context, tx execer, id string) (int64, []pendingCall, error) {
	var last int64
	var pj string
	err := tx.QueryRowContext(ctx, `SELECT last_seq, pending FROM sessions WHERE id = ?`, id).Scan(&last, &pj)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return 0, nil, err
	}
	var pending []pendingCall
	if err := json.Unmarshal([]byte(pj), &pending); err != nil {
		return 0, nil, fmt.Errorf("%w: session %s pending calls: %v", ErrCorrupt, id, err)
	}
	return last, pending, nil
}

func setTail(ctx context.Context, tx execer, id string, last int64, pending []pendingCall, now int64) error {
	if pending == nil {
		pending = []pendingCall{}
	}
	pj, _ := json.Marshal(pending)
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seq = ?, pending = ?, updated_at = ? WHERE id = ?`, last, string(pj), now, id)
	return err
}

// pendingAt replays the rows up to seq from the last assistant turn at or
// before it and returns the calls still unanswered at seq.
func pendingAt(ctx context.Context, tx execer, sessionID string, seq int64) ([]pendingCall, error) {
	// ORDER BY ... LIMIT 1 walks the (session_id, seq) index backwards and
	// stops at the first assistant row; max(seq) with the kind filter would
	// read every row of the session.
	rows, err := tx.QueryContext(ctx, `SELECT seq, kind, payload FROM chunks
		WHERE session_id = ?1 AND seq <= ?2 AND seq >= coalesce(
			(SELECT seq FROM chunks WHERE session_id = ?1 AND seq <= ?2 AND kind = 'assistant' ORDER BY seq DESC LIMIT 1), 0)
		ORDER BY seq`, sessionID, seq)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pending []pendingCall
	for rows.Next() {
		var s int64
		var kind Kind
		var payload string
		if err := rows.Scan(&s, &kind, &payload); err != nil {
			return nil, err
		}
		v, err := decodePayload(kind, json.RawMessage(payload))
		if err != nil {
			return nil, fmt.Errorf("session %s row %d: %w", sessionID, s, err)
		}
		// Rows already stored passed step once; replaying them cannot fail
		// except for kinds that do not touch pending calls.
		switch v.(type) {
		case *AssistantPayload, *ToolResultPayload:
			if pending, err = step(pending, kind, v, s); err != nil {
				return nil, fmt.Errorf("session %s row %d: %w", sessionID, s, err)
			}
		}
	}
	return pending, rows.Err()
}

// PendingCalls (used by checkpoint restore, which refuses while a call is in flight) returns the tool calls of the session's last assistant turn
// that have no result yet, in the order the model made them. Outside a live
// run it is empty: forks, imports, FinishRun and repair-on-open all answer
// dangling calls.
func (db *DB) PendingCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	var out []ToolCall
	err := db.read(ctx, func(tx execer) error {
		last, pending, err := sessionTail(ctx, tx, sessionID)
		if err != nil || len(pending) == 0 {
			return err
		}
		var payload string
		if err := tx.QueryRowContext(ctx, `SELECT payload FROM chunks WHERE session_id = ? AND seq <= ? AND kind = 'assistant'
			ORDER BY seq DESC LIMIT 1`, sessionID, last).Scan(&payload); err != nil {
			return err
		}
		var a AssistantPayload
		if err := json.Unmarshal([]byte(payload), &a); err != nil {
			return err
		}
		for _, c := range a.ToolCalls {
			for _, p := range pending {
				if p.ID == c.ID {
					out = append(out, c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pending calls of session %s: %w", sessionID, err)
	}
	return out, nil
}

// Chunks returns all rows of a session in seq order.
func (db *DB) Chunks(ctx context.Context, sessionID string) ([]Chunk, error) {
	return db.ChunksAfter(ctx, sessionID, 0)
}

// ChunksAfter returns the rows with seq > after, in order: what a UI that
// missed events fetches to catch up.
func (db *DB) ChunksAfter(ctx context.Context, sessionID string, after int64) ([]Chunk, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+chunkCols+` FROM chunks
		WHERE session_id = ? AND seq > ? ORDER BY seq`, sessionID, after)
	if err != nil {
		return nil, fmt.Errorf("rows of session %s: %w", sessionID, classify(err))
	}
	out, err := db.scanChunks(rows, sessionID)
	if err != nil {
		return nil, fmt.Errorf("rows of session %s: %w", sessionID, classify(err))
	}
	if len(out) == 0 {
		if _, err := db.GetSession(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	return out, nil
}
