package desktop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/instructions"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Sessions is the bound service for the session list, search, forks, export and the rows of
// one session.
type Sessions struct{ c *core }

// ListSessions returns every session not archived, most recently updated first.
func (s *Sessions) ListSessions() ([]SessionSummary, error) {
	return s.summaries(store.ListFilter{})
}

// NewSession creates an empty session working in workspace ("" for none yet).
func (s *Sessions) NewSession(workspace string) (Session, error) {
	ctx := s.c.context()
	// The provider and model runs would use now; with settings that cannot be used the session
	// starts with none, and its first run says why it cannot start.
	r, _, err := s.c.settings.Effective(ctx)
	var bad *config.SettingError
	if err != nil && !errors.As(err, &bad) {
		return Session{}, err
	}
	if workspace, err = checkFolder(workspace); err != nil {
		return Session{}, err
	}
	x, err := s.c.db.CreateSession(ctx, store.NewSession{Title: DefaultTitle, Workspace: workspace, Model: r.Model,
		Provider: r.Provider})
	return s.c.view(x), err
}

// DefaultTitle is a new session's title until its first message names it.
const DefaultTitle = chat.DefaultTitle

// RenameSession changes a session's title.
func (s *Sessions) RenameSession(id, title string) error {
	return s.c.db.RenameSession(s.c.context(), id, title)
}

// DeleteSession deletes a session; its forks keep their rows. A running session must be
// stopped first. See DeleteSessions.
func (s *Sessions) DeleteSession(id string) error {
	if s.c.running(id) {
		return errBusy("delete session " + id)
	}
	_, err := s.DeleteSessions([]string{id})
	return err
}

// ForkSession makes a new session from the rows up to and including seq.
func (s *Sessions) ForkSession(id string, seq int64) (Session, error) {
	x, err := s.c.db.Fork(s.c.context(), id, seq)
	return s.c.view(x), err
}

// SearchSessions searches every session's rows (FTS5 query syntax).
func (s *Sessions) SearchSessions(query string) ([]store.Hit, error) {
	if strings.TrimSpace(query) == "" {
		return []store.Hit{}, nil
	}
	return s.c.db.Search(s.c.context(), query, 50)
}

// SearchText searches every session's rows for plain text: each word must appear, taken
// literally (punctuation and FTS operators included).
func (s *Sessions) SearchText(text string) ([]store.Hit, error) {
	return s.SearchSessions(store.Literal(text))
}

// ExportSession writes the session as JSON Lines to a file the person picks. It returns the
// path written, or "" when the dialog was cancelled.
func (s *Sessions) ExportSession(id string) (string, error) {
	ctx := s.c.context()
	x, err := s.c.db.GetSession(ctx, id)
	if err != nil {
		return "", err
	}
	path, err := s.c.dialogs.SaveFile("Export session", exportName(x))
	if err != nil || path == "" {
		return "", err
	}
	if err := s.writeExport(id, path); err != nil {
		return "", fmt.Errorf("export session %s: %w", id, err)
	}
	return path, nil
}

// writeExport writes the JSON Lines export through writeAtomic: no partial file on failure.
// Change records go with the rows; file contents stay out (they can be large).
func (s *Sessions) writeExport(id, path string) error {
	return writeAtomic(path, func(w io.Writer) error { return stack.ExportSession(s.c.context(), s.c.db, id, w, false) })
}

func exportName(s store.Session) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '-'
		}
		return r
	}, s.Title)
	return fmt.Sprintf("%s (%s).jsonl", strings.TrimSpace(loopcore.Cut(name, 41)), s.ID)
}

// OpenSession returns a session with all its rows (OpenSessionTail with no limit).
func (s *Sessions) OpenSession(id string) (SessionView, error) { return s.OpenSessionTail(id, 0) }

// OpenSessionTail returns a session with its last limit rows (every row when limit <= 0),
// its runs, pending approvals and idle meters, and starts watching its workspace for the file
// tree. RowCount and FirstSeq say what lies before the rows given (RowsBefore pages back);
// the page keeps the rows current from rows_stored events after that. Its cost does not grow
// with the session's length: the rows shown, the rows the next request carries (for the
// context meter) and the runs table are all it reads.
func (s *Sessions) OpenSessionTail(id string, limit int) (SessionView, error) {
	ctx := s.c.context()
	x, err := s.c.db.GetSession(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	chunks, span, err := s.c.db.ChunksTail(ctx, id, limit)
	if err != nil {
		return SessionView{}, err
	}
	runs, err := s.c.db.ListRuns(ctx, id)
	if err != nil {
		return SessionView{}, err
	}
	if runs == nil {
		runs = []store.Run{}
	}
	v := SessionView{Session: s.c.view(x), Rows: pageRows(bus.RowsOf(chunks)), RowCount: span.Count, FirstSeq: span.FirstSeq,
		Runs: runs, Pending: s.c.pending(id)}
	v.RunningRunID, _ = s.c.st.Runner.Running(id)
	v.Running = s.c.st.Runner.RunningCalls(id)
	if v.Sandbox, err = s.c.sandboxView(ctx, x); err != nil {
		return SessionView{}, err
	}
	if v.Queued, err = s.c.chat.Queued(ctx, id); err != nil {
		return SessionView{}, err
	}
	if v.Mode, err = s.c.db.GetSessionMode(ctx, id); err != nil {
		return SessionView{}, err
	}
	if v.Budgets, err = s.c.db.GetSessionBudgets(ctx, id); err != nil {
		return SessionView{}, err
	}
	if v.Totals, _, err = s.c.db.FamilyTotals(ctx, id); err != nil {
		return SessionView{}, err
	}
	if v.Meters, err = s.c.idleMeters(ctx, x, runs); err != nil {
		return SessionView{}, err
	}
	if x.Workspace != "" {
		// A folder that vanished still opens the session; the tree says why.
		_ = s.c.watches.Show(ctx, x.Workspace)
	}
	return v, nil
}

// RowsBefore returns up to limit rows with seq < before, the ones nearest before, oldest
// first: the page of rows above those the page holds.
func (s *Sessions) RowsBefore(id string, before int64, limit int) ([]bus.StoredRow, error) {
	chunks, err := s.c.db.ChunksBefore(s.c.context(), id, before, limit)
	if err != nil {
		return nil, err
	}
	return pageRows(bus.RowsOf(chunks)), nil
}

// RowsAround returns about limit rows around seq (half before it, the rest from it on),
// oldest first: where a jump to a search hit or a forked-from row lands.
func (s *Sessions) RowsAround(id string, seq int64, limit int) ([]bus.StoredRow, error) {
	chunks, err := s.c.db.ChunksAround(s.c.context(), id, seq, limit)
	if err != nil {
		return nil, err
	}
	return pageRows(bus.RowsOf(chunks)), nil
}

// RowsAfter returns the session's rows with seq > after: what the page missed when it sees a
// gap in the events.
func (s *Sessions) RowsAfter(id string, after int64) ([]bus.StoredRow, error) {
	chunks, err := s.c.db.ChunksAfter(s.c.context(), id, after)
	if err != nil {
		return nil, err
	}
	return pageRows(bus.RowsOf(chunks)), nil
}

// Runs returns the session's runs, oldest first.
func (s *Sessions) Runs(id string) ([]store.Run, error) {
	runs, err := s.c.db.ListRuns(s.c.context(), id)
	if runs == nil && err == nil {
		runs = []store.Run{}
	}
	return runs, err
}

// idleMeters are the meters of the session's last run against the limits it ran under, with
// the context fill the next request would have (from the rows it would carry: those since the
// last compaction, which the runner then holds for the session's next run). What the run's
// children used counted in the run's meters (and against its limits) while it ran, so it
// counts here too.
func (c *core) idleMeters(ctx context.Context, x store.Session, runs []store.Run) ([]loopcore.Meter, error) {
	if len(runs) == 0 {
		return []loopcore.Meter{}, nil
	}
	last := runs[len(runs)-1]
	limits, err := loopcore.ParseLimits(last.Limits)
	if err != nil {
		return nil, err
	}
	kids, err := c.runChildren(ctx, x.ID, last.ID)
	if err != nil {
		return nil, err
	}
	ctxTokens, err := c.st.Runner.ContextTokens(ctx, x.ID, instructions.DefaultSystemPrompt(x.Workspace))
	if err != nil {
		return nil, err
	}
	elapsed := last.Elapsed() // the run's own time, not the person's waiting
	if last.EndedAt.IsZero() {
		elapsed = time.Since(last.StartedAt)
	}
	return loopcore.Meters(loopcore.MeterInput{Turns: last.Turns + kids.Turns, ToolCalls: last.ToolCalls + kids.ToolCalls,
		Tokens: last.InputTokens + last.OutputTokens + kids.InputTokens + kids.OutputTokens, CostUSD: last.CostUSD + kids.Cost,
		Elapsed: elapsed, ContextTokens: ctxTokens, Limits: limits}), nil
}
