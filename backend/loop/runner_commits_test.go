package loop_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// commitLog records the kinds of the rows of every Append, one entry per transaction.
type commitLog struct {
	*store.DB
	mu      sync.Mutex
	commits []string
}

func (c *commitLog) Append(ctx context.Context, sid, rid string, cs ...store.NewChunk) ([]store.Chunk, error) {
	kinds := make([]string, len(cs))
	for i, ch := range cs {
		kinds[i] = string(ch.Kind)
	}
	c.mu.Lock()
	c.commits = append(c.commits, strings.Join(kinds, "+"))
	c.mu.Unlock()
	return c.DB.Append(ctx, sid, rid, cs...)
}

// StartRunWith records the run's row with the rows appended with it, as one entry.
func (c *commitLog) StartRunWith(ctx context.Context, n store.NewRun, cs ...store.NewChunk) (store.Run, []store.Chunk, error) {
	kinds := []string{"run"}
	for _, ch := range cs {
		kinds = append(kinds, string(ch.Kind))
	}
	c.mu.Lock()
	c.commits = append(c.commits, strings.Join(kinds, "+"))
	c.mu.Unlock()
	return c.DB.StartRunWith(ctx, n, cs...)
}

// AppendAndFinish records the rows it appends with the run's end, as one entry.
func (c *commitLog) AppendAndFinish(ctx context.Context, sid, rid string, r store.RunResult, cs ...store.NewChunk) (store.Run, []store.Chunk, []store.Chunk, error) {
	kinds := make([]string, 0, len(cs)+1)
	for _, ch := range cs {
		kinds = append(kinds, string(ch.Kind))
	}
	c.mu.Lock()
	c.commits = append(c.commits, strings.Join(append(kinds, "finish"), "+"))
	c.mu.Unlock()
	return c.DB.AppendAndFinish(ctx, sid, rid, r, cs...)
}

// An approval row waits for the call's result and is written in its transaction (doc.go,
// Durable commits): a tool turn costs two commits, the call before the tool and the result
// before the next request, and the journal's order of rows is what it was.
func TestApprovalRowSharesTheResultsCommit(t *testing.T) {
	h := newHarness(t)
	h.write("d/a.txt", "a")
	log := &commitLog{DB: h.db}
	r := loop.New(loop.Config{Store: log, Model: modelOf(h), Approver: h.approver, Tools: toolsOf(t), Workspaces: wsOf()})
	defer r.Close()
	h.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{"path":"d"}`}),
		fakeai.ToolCalls(fakeai.Call{ID: "c2", Name: "list_dir", Arguments: `{}`}, fakeai.Call{ID: "c3", Name: "read_file", Arguments: `{"path":"d/a.txt"}`}),
		fakeai.Text("Done."))
	sid := h.session()
	id, err := r.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "look", Model: "fake-model", Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := r.Wait(context.Background(), id); err != nil || res.Status != core.StopCompleted {
		t.Fatalf("result %+v %v", res, err)
	}
	// Parallel read-only calls: both decisions are deferred; the first result to finish
	// carries them, the second result is its own commit. No Stop hook: the answer is
	// stored with the run's end; the run's row is stored with the prompt.
	want := []string{"run+user", "assistant", "approval+tool_result", "assistant", "approval+approval+tool_result", "tool_result", "assistant+finish"}
	if !slices.Equal(log.commits, want) {
		t.Errorf("commits %q, want %q", log.commits, want)
	}
	var kinds []string
	for _, c := range h.rows(sid) {
		kinds = append(kinds, string(c.Kind))
	}
	wantRows := "user assistant approval tool_result assistant approval approval tool_result tool_result assistant"
	if got := strings.Join(kinds, " "); got != wantRows {
		t.Errorf("rows %s, want %s", got, wantRows)
	}
	if ids := unanswered(t, h.rows(sid)); len(ids) != 0 {
		t.Errorf("calls left unanswered: %v", ids)
	}
}
