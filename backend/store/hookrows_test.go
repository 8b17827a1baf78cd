package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A hook row may sit between a tool call and its result (PreToolUse hooks run there), never
// reaches the model, and is found by search; note rows (a hook's context) are stored too.
func TestHookRowsAreStoredSearchableAndNotSent(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "hooks")
	mustAppend(t, db, s.ID, "", user("clean up"), assistant("", store.ToolCall{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"rm -rf /"}`}))
	hook := store.HookPayload{Event: "PreToolUse", Command: "./guard.sh", Source: "project", CallID: "c1", ExitCode: 2,
		DurationMS: 12, Decision: "deny", Reason: "refusing destructive deletions", Stderr: "refusing destructive deletions\n"}
	mustAppend(t, db, s.ID, "", store.NewChunk{Kind: store.KindHook, Payload: hook})
	mustAppend(t, db, s.ID, "", result("c1", "run_shell_command", "denied: refusing destructive deletions"),
		store.NewChunk{Kind: store.KindNote, Payload: store.NotePayload{Source: "hook", Text: "branch: main"}})
	rows, err := db.Chunks(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := store.Messages(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || len(msgs) != 4 {
		t.Fatalf("%d rows, %d messages; want 5 rows and 4 messages (the hook row is not sent)", len(rows), len(msgs))
	}
	if !strings.Contains(string(msgs[3]), store.NotePrefix) || !strings.Contains(string(msgs[3]), "branch: main") {
		t.Fatalf("the note reached the model as %s", msgs[3])
	}
	hits, err := db.Search(context.Background(), "destructive", 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search for the hook's reason: %v %v", hits, err)
	}
	recent, err := db.RecentHookRuns(context.Background(), "/w", 10)
	if err != nil || len(recent) != 1 || recent[0].Hook.Reason != "refusing destructive deletions" || recent[0].SessionID != s.ID || recent[0].Seq != 3 {
		t.Fatalf("recent hook runs %+v %v", recent, err)
	}
	if _, err := db.Append(context.Background(), s.ID, "", store.NewChunk{Kind: store.KindHook, Payload: store.HookPayload{Event: "Stop"}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a hook row without a command: %v", err)
	}
}

// Trust is kept per folder by hash; trusting again replaces it; untrusting forgets it.
func TestHookTrust(t *testing.T) {
	db, _ := openTemp(t)
	ctx := context.Background()
	if _, err := db.HookTrustOf(ctx, "/w"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no trust yet: %v", err)
	}
	sha := strings.Repeat("a", 64)
	if _, err := db.TrustHooks(ctx, "/w", sha, "// .loopdesk/hooks.json\n{}"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrustHooks(ctx, "/w", "short", ""); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a bad hash: %v", err)
	}
	sha2 := strings.Repeat("b", 64)
	if _, err := db.TrustHooks(ctx, "/w", sha2, "x"); err != nil {
		t.Fatal(err)
	}
	got, err := db.HookTrustOf(ctx, "/w")
	if err != nil || got.SHA256 != sha2 || got.Config != "x" || got.TrustedAt.IsZero() {
		t.Fatalf("trust %+v %v", got, err)
	}
	if err := db.UntrustHooks(ctx, "/w"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HookTrustOf(ctx, "/w"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after untrust: %v", err)
	}
}
