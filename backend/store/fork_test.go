package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func samePrefix(t *testing.T, what string, prefix, all [][]byte) {
	t.Helper()
	if len(prefix) > len(all) {
		t.Fatalf("%s: %d messages is longer than %d", what, len(prefix), len(all))
	}
	for i := range prefix {
		if !bytes.Equal(prefix[i], all[i]) {
			t.Fatalf("%s: message %d differs:\n%s\n%s", what, i, prefix[i], all[i])
		}
	}
}

func toBytes[T ~[]byte](ms []T) [][]byte {
	out := make([][]byte, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func TestReplayIsByteIdentical(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	s := mustSession(t, db, "replay")
	conversation(t, db, s.ID)
	finishedRuns(t, db, s.ID)
	first := toBytes(messagesOf(t, db, s.ID))
	totals := totalsJSON(t, db, s.ID)

	// Appending only adds at the end: every earlier request is a prefix of
	// the next one (what keeps provider prompt caches hitting).
	mustAppend(t, db, s.ID, "r2", user("and now?"))
	samePrefix(t, "after append", first, toBytes(messagesOf(t, db, s.ID)))

	// Rebuilding from the rows after a reopen gives the same bytes.
	before := toBytes(messagesOf(t, db, s.ID))
	db.Close()
	db = openPath(t, path)
	after := toBytes(messagesOf(t, db, s.ID))
	if len(before) != len(after) {
		t.Fatalf("reopen changed the message count %d -> %d", len(before), len(after))
	}
	samePrefix(t, "after reopen", before, after)
	if got := totalsJSON(t, db, s.ID); got != totals {
		t.Fatalf("totals after reopen: %s, before %s", got, totals)
	}

	// So does an export imported back.
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	imp, err := db.Import(ctx, &buf)
	if err != nil {
		t.Fatal(err)
	}
	imported := toBytes(messagesOf(t, db, imp.ID))
	if len(imported) != len(before) {
		t.Fatalf("import changed the message count %d -> %d", len(before), len(imported))
	}
	samePrefix(t, "after import", before, imported)
	// The session's totals come from its runs, which travel with the export.
	if got := strings.Replace(totalsJSON(t, db, imp.ID), imp.ID, s.ID, 1); got != totals {
		t.Fatalf("totals after import: %s, before %s", got, totals)
	}
}

// finishedRuns records three runs as the runner would: one completed, one stopped by a
// bound, one cancelled; all of them count in the totals.
func finishedRuns(t *testing.T, db *store.DB, id string) {
	t.Helper()
	ctx := context.Background()
	results := []struct {
		res   store.RunResult
		spent store.Counters
	}{
		{store.RunResult{Status: "completed"}, store.Counters{Turns: 2, ToolCalls: 2, InputTokens: 1200, OutputTokens: 80, CostUSD: 0.0125}},
		{store.RunResult{Status: "max_turns"}, store.Counters{Turns: 5, ToolCalls: 7, InputTokens: 9000, OutputTokens: 400, CostUSD: 0.1}},
		{store.RunResult{Status: "cancelled"}, store.Counters{Turns: 1, InputTokens: 300, OutputTokens: 3, CostUSD: 0.003}},
	}
	for i, r := range results {
		mode := store.ModeExecute
		if i == 0 {
			mode = store.ModePlan
		}
		run, err := db.StartRun(ctx, store.NewRun{SessionID: id, Model: "m", Mode: mode,
			Instructions: []store.Instruction{{Path: "/ws/AGENTS.md", SHA256: "ab", Bytes: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		spend(t, db, id, run.ID, r.spent)
		if _, _, err := db.FinishRun(ctx, run.ID, r.res); err != nil {
			t.Fatal(err)
		}
	}
}

func totalsJSON(t *testing.T, db *store.DB, id string) string {
	t.Helper()
	tot, err := db.SessionTotals(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tot)
	return string(b)
}

func TestForkKeepsParentBytes(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	parent := mustSession(t, db, "parent")
	conversation(t, db, parent.ID)
	parentRows, _ := db.Chunks(ctx, parent.ID)
	parentMsgs := toBytes(messagesOf(t, db, parent.ID))

	child, err := db.Fork(ctx, parent.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	if child.ParentID != parent.ID || child.ForkSeq != 5 || child.Workspace != parent.Workspace {
		t.Fatalf("lineage not recorded: %+v", child)
	}
	childRows, _ := db.Chunks(ctx, child.ID)
	if len(childRows) != 5 {
		t.Fatalf("fork at 5 holds %d rows", len(childRows))
	}
	for i, c := range childRows {
		p := parentRows[i]
		if c.Seq != p.Seq || c.Kind != p.Kind || !bytes.Equal(c.Payload, p.Payload) || c.RunID != p.RunID || !c.CreatedAt.Equal(p.CreatedAt) {
			t.Fatalf("row %d differs from the parent's: %+v vs %+v", i, c, p)
		}
	}
	// The child diverges; its messages start with exactly the parent's bytes
	// and the parent is untouched.
	mustAppend(t, db, child.ID, "", user("different question"))
	childMsgs := toBytes(messagesOf(t, db, child.ID))
	samePrefix(t, "fork", parentMsgs[:4], childMsgs)
	if got := toBytes(messagesOf(t, db, parent.ID)); len(got) != len(parentMsgs) {
		t.Fatalf("forking changed the parent")
	}
	if rows, _ := db.Chunks(ctx, parent.ID); len(rows) != len(parentRows) {
		t.Fatalf("forking changed the parent's rows: %d -> %d", len(parentRows), len(rows))
	}

	// A fork of a fork works, and deleting the parents breaks nothing.
	grand, err := db.Fork(ctx, child.ID, 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(ctx, parent.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(ctx, child.ID); err != nil {
		t.Fatal(err)
	}
	g := toBytes(messagesOf(t, db, grand.ID))
	samePrefix(t, "grandchild", childMsgs, g)
	if gs, err := db.GetSession(ctx, grand.ID); err != nil || gs.ParentID != child.ID || gs.ForkSeq != 6 {
		t.Fatalf("grandchild lineage: %+v %v", gs, err)
	}
}

func TestForkErrors(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	for _, seq := range []int64{0, -1, 7} {
		if _, err := db.Fork(ctx, s.ID, seq); !errors.Is(err, store.ErrSeqOutOfRange) {
			t.Errorf("fork at %d: want ErrSeqOutOfRange, got %v", seq, err)
		}
	}
	if _, err := db.Fork(ctx, "missing", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("fork of a missing session: %v", err)
	}
	list, _ := db.ListSessions(ctx)
	if len(list) != 1 {
		t.Fatalf("failed forks left %d sessions", len(list))
	}
}

func TestForkMidTurnAnswersPendingCalls(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	// Row 4 answered c1; c2 still waits at that point.
	child, err := db.Fork(ctx, s.ID, 4)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Chunks(ctx, child.ID)
	if len(rows) != 5 || child.ForkSeq != 4 {
		t.Fatalf("want rows 1..4 plus one synthesized result, got %d", len(rows))
	}
	var tr store.ToolResultPayload
	json.Unmarshal(rows[4].Payload, &tr)
	if tr.CallID != "c2" || !tr.IsError || !strings.HasPrefix(tr.Content, store.Interrupted) {
		t.Fatalf("synthesized result: %+v", tr)
	}
	if p, _ := db.PendingCalls(ctx, child.ID); len(p) != 0 {
		t.Fatalf("fork has pending calls: %+v", p)
	}
	// The fork is ready for the next request, and reopening changes nothing.
	mustAppend(t, db, child.ID, "", user("try again"))
	db.Close()
	db = openPath(t, path)
	if db.Repaired.Results != 0 {
		t.Fatalf("reopen repaired the fork: %+v", db.Repaired)
	}
	if p, _ := db.PendingCalls(ctx, s.ID); len(p) != 0 {
		t.Fatalf("parent has pending calls: %+v", p)
	}
}

func TestForkBeforeTheFirstRowIsAnEmptyChild(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	f, err := db.ForkBefore(ctx, s.ID, 1, store.ForkEdited)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Chunks(ctx, f.ID)
	if err != nil || len(rows) != 0 || f.ParentID != s.ID || f.ForkSeq != 0 {
		t.Fatalf("fork before row 1: %d rows, parent %q at %d, %v", len(rows), f.ParentID, f.ForkSeq, err)
	}
	if _, err := db.ForkBefore(ctx, s.ID, 0, store.ForkEdited); !errors.Is(err, store.ErrSeqOutOfRange) {
		t.Fatalf("fork before row 0: %v", err)
	}
}

func TestSessionBudgetsPersistAndForksKeepThem(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	if b, err := db.GetSessionBudgets(ctx, s.ID); err != nil || b.MaxTurns != nil || b.MaxCostUSD != nil {
		t.Fatalf("a new session's budgets = %+v, %v; want none", b, err)
	}
	turns, cost := 3, 0.25
	if err := db.SetSessionBudgets(ctx, s.ID, store.SessionBudgets{MaxTurns: &turns, MaxCostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	bad := -1
	if err := db.SetSessionBudgets(ctx, s.ID, store.SessionBudgets{MaxToolCalls: &bad}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a negative budget: %v", err)
	}
	f, err := db.Fork(ctx, s.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{s.ID, f.ID} {
		b, err := db.GetSessionBudgets(ctx, id)
		if err != nil || b.MaxTurns == nil || *b.MaxTurns != 3 || b.MaxCostUSD == nil || *b.MaxCostUSD != 0.25 || b.MaxToolCalls != nil {
			t.Fatalf("budgets of %s = %+v, %v; want turns 3, cost 0.25 (the refused change not stored)", id, b, err)
		}
	}
}

// A session's family is the forks above and below it, not its task children nor sessions
// of other families.
func TestFamilyIsTheForksOfOneRoot(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	root := mustSession(t, db, "root")
	conversation(t, db, root.ID)
	other := mustSession(t, db, "other")
	conversation(t, db, other.ID)
	a, err := db.Fork(ctx, root.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.Fork(ctx, a.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Fork(ctx, root.ID, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Fork(ctx, other.ID, 1); err != nil {
		t.Fatal(err)
	}
	child, err := db.CreateSession(ctx, store.NewSession{Title: "task", Workspace: "/w", Model: "m", ParentID: root.ID, ParentCallID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{root.ID, b.ID, c.ID} {
		fam, err := db.Family(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range fam {
			ids = append(ids, s.ID)
		}
		if want := []string{root.ID, a.ID, b.ID, c.ID}; !slices.Equal(ids, want) {
			t.Errorf("family of %s: %v, want %v", from, ids, want)
		}
	}
	if fam, err := db.Family(ctx, child.ID); err != nil || len(fam) != 1 || fam[0].ID != child.ID {
		t.Errorf("a task child's family: %+v %v", fam, err)
	}
	if _, err := db.Family(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("family of no session: %v", err)
	}
}
