package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// openTemp opens a fresh database in a temp dir with a short busy timeout.
func openTemp(t *testing.T) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db := openPath(t, path)
	return db, path
}

func openPath(t *testing.T, path string) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), path, store.Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustSession(t *testing.T, db *store.DB, title string) store.Session {
	t.Helper()
	s, err := db.CreateSession(context.Background(), store.NewSession{Title: title, Workspace: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAppend(t *testing.T, db *store.DB, id, run string, cs ...store.NewChunk) []store.Chunk {
	t.Helper()
	out, err := db.Append(context.Background(), id, run, cs...)
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	return out
}

func user(text string) store.NewChunk {
	return store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: text}}
}

func assistant(text string, calls ...store.ToolCall) store.NewChunk {
	return store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: text, ToolCalls: calls}}
}

func result(id, name, content string) store.NewChunk {
	return store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: name, Content: content}}
}

func call(id, name, args string) store.ToolCall {
	return store.ToolCall{ID: id, Name: name, Arguments: args}
}

// conversation appends a realistic session: two tool turns and an answer.
func conversation(t *testing.T, db *store.DB, id string) {
	t.Helper()
	mustAppend(t, db, id, "r1", user("list the files <please> & read go.mod"))
	mustAppend(t, db, id, "r1", assistant("", call("c1", "list_dir", `{"path":"."}`), call("c2", "read_file", `{"path": "go.mod" }`)))
	mustAppend(t, db, id, "r1", store.NewChunk{Kind: store.KindApproval, Payload: store.ApprovalPayload{CallID: "c1", Tool: "list_dir", Decision: "approved", By: "mode:read-only"}})
	mustAppend(t, db, id, "r1", result("c1", "list_dir", "go.mod\nmain.go"))
	mustAppend(t, db, id, "r1", result("c2", "read_file", "module example.com/x\n"))
	mustAppend(t, db, id, "r1", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: "The module is example.com/x.", Reasoning: "read it"}})
}

func messagesOf(t *testing.T, db *store.DB, id string) []json.RawMessage {
	t.Helper()
	cs, err := db.Chunks(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := store.Messages(cs)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// spend appends rows whose usage adds up to c, as a run would: c.Turns-1 failed model calls
// (usage rows) and one tool turn with c.ToolCalls calls and their results carrying the tokens.
func spend(t *testing.T, db *store.DB, id, run string, c store.Counters) {
	t.Helper()
	for range c.Turns - 1 {
		mustAppend(t, db, id, run, store.NewChunk{Kind: store.KindUsage, Payload: store.UsagePayload{Reason: "failed"}})
	}
	var calls []store.ToolCall
	for i := range c.ToolCalls {
		calls = append(calls, call(fmt.Sprintf("%s-c%d", run, i), "read_file", `{"path":"a"}`))
	}
	mustAppend(t, db, id, run, store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{ToolCalls: calls,
		Usage: &store.Usage{InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, CacheReadTokens: c.CacheReadTokens,
			CacheWriteTokens: c.CacheWriteTokens, CostUSD: c.CostUSD}}})
	for _, cl := range calls {
		mustAppend(t, db, id, run, result(cl.ID, cl.Name, "ok"))
	}
}

// jsonText is s as it appears inside a JSON string (without the quotes).
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
