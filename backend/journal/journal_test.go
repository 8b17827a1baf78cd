package journal_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopdesk/loopdesk/backend/journal"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// counted is the store, counting the transactions the journal makes.
type counted struct {
	*store.DB
	commits []string
}

func (c *counted) Append(ctx context.Context, sessionID, runID string, chunks ...store.NewChunk) ([]store.Chunk, error) {
	c.commits = append(c.commits, "append")
	return c.DB.Append(ctx, sessionID, runID, chunks...)
}

func (c *counted) StartRunWith(ctx context.Context, n store.NewRun, chunks ...store.NewChunk) (store.Run, []store.Chunk, error) {
	c.commits = append(c.commits, "start")
	return c.DB.StartRunWith(ctx, n, chunks...)
}

func (c *counted) AppendAndFinish(ctx context.Context, sessionID, runID string, res store.RunResult, chunks ...store.NewChunk) (store.Run, []store.Chunk, []store.Chunk, error) {
	c.commits = append(c.commits, "append+finish")
	return c.DB.AppendAndFinish(ctx, sessionID, runID, res, chunks...)
}

// opened is a journal of a new run of a new session, over a real database.
func opened(t *testing.T) (*journal.Journal, *counted, string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "loopdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.CreateSession(ctx, store.NewSession{Title: "t", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := &counted{DB: db}
	j, err := journal.Open(c, s.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Begin(store.NewRun{ID: store.NewRunID(), SessionID: s.ID, Model: "m", Mode: store.ModeExecute})
	return j, c, s.ID
}

func kinds(t *testing.T, db *store.DB, sessionID string) []store.Kind {
	t.Helper()
	rows, err := db.Chunks(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Kind
	for _, r := range rows {
		out = append(out, r.Kind)
	}
	return out
}

var call = core.Call{ID: "c1", Name: "write_file", Arguments: `{}`}

// The run's row goes with its first rows; an approval waits for the call's result and is
// written before it in that result's transaction: three commits for a prompt and a tool turn.
func TestApprovalRowsWaitForTheNextCommit(t *testing.T) {
	j, c, sid := opened(t)
	ctx := context.Background()
	mustCommit(t, j, core.UserRow{Text: "go"})
	mustCommit(t, j, core.AssistantRow{ToolCalls: []core.Call{call}})
	j.Batch(nil)
	if !j.Defer([]core.Row{core.ApprovalRow{CallID: "c1", Tool: call.Name, Decision: core.DecisionApproved, By: "rule"}}) {
		t.Fatal("an approval row was not deferred")
	}
	if j.Defer([]core.Row{core.ToolResultRow{CallID: "c1", Name: call.Name, Content: "ok"}}) {
		t.Fatal("a tool result was deferred: the next request is built from it")
	}
	added, err := j.Commit(ctx, []core.Row{core.ToolResultRow{CallID: "c1", Name: call.Name, Content: "ok"}})
	if err != nil || len(added) != 2 {
		t.Fatalf("commit: %d rows, %v", len(added), err)
	}
	if want := []string{"start", "append", "append"}; !slices.Equal(c.commits, want) {
		t.Fatalf("commits %v, want %v", c.commits, want)
	}
	want := []store.Kind{store.KindUser, store.KindAssistant, store.KindApproval, store.KindToolResult}
	if got := kinds(t, c.DB, sid); !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if got := j.Rows(); len(got) != 4 || j.LastSeq() != got[3].Seq {
		t.Fatalf("the journal holds %d rows, last seq %d", len(got), j.LastSeq())
	}
}

// A batch that ends the run keeps its rows and the events that report them for End, which
// writes them with the run's result in one transaction and hands the events back.
func TestTheLastBatchIsWrittenWithTheRunsEnd(t *testing.T) {
	j, c, sid := opened(t)
	ctx := context.Background()
	mustCommit(t, j, core.UserRow{Text: "hi"})
	answer := core.AssistantRow{Text: "hello"}
	event := core.TextDelta("hello")
	j.Batch([]core.Effect{core.Persist{Rows: []core.Row{answer}}, core.Emit{Payload: event}, core.Done{}})
	if j.Hold(event) {
		t.Fatal("an event was held before any row of the batch was")
	}
	if !j.Defer([]core.Row{answer}) || !j.Hold(event) {
		t.Fatal("the last batch's answer or its event was not kept for the end")
	}
	if got := kinds(t, c.DB, sid); len(got) != 1 {
		t.Fatalf("rows before the end %v", got)
	}
	end, err := j.End(ctx, store.RunResult{Status: store.RunStatus(core.StopCompleted), Output: "hello"},
		func(error) store.RunResult { t.Fatal("the end failed"); return store.RunResult{} })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"start", "append+finish"}; !slices.Equal(c.commits, want) {
		t.Fatalf("commits %v, want %v", c.commits, want)
	}
	if len(end.Added) != 1 || len(end.Held) != 1 || end.Held[0] != event || end.Run.Status != store.RunStatus(core.StopCompleted) {
		t.Fatalf("ended %+v", end)
	}
}

func mustCommit(t *testing.T, j *journal.Journal, rows ...core.Row) {
	t.Helper()
	if _, err := j.Commit(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
}
