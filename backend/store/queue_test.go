package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A queued message keeps its hooks' context across a reopen of the database, a message
// without any reads back none, Dequeue drops the context with the message, and the user row
// delivering a message removes it (and its context) in its own transaction.
func TestQueuedMessageKeepsItsHookContext(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	s := mustSession(t, db, "queue")
	at := time.UnixMilli(1_700_000_000_000)
	for _, m := range []store.QueuedMessage{
		{ID: "q1", Text: "which branch?", QueuedAt: at, HookContext: []string{"branch: main", "ticket LD-7"}},
		{ID: "q2", Text: "plain", QueuedAt: at},
		{ID: "q3", Text: "dropped", QueuedAt: at, HookContext: []string{"secret plan"}},
	} {
		if err := db.Enqueue(ctx, s.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db = openPath(t, path) // a restart
	if ok, err := db.Dequeue(ctx, s.ID, "q3"); !ok || err != nil {
		t.Fatalf("dequeue: %v %v", ok, err)
	}
	got, err := db.Queued(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.QueuedMessage{
		{ID: "q1", Text: "which branch?", QueuedAt: at, HookContext: []string{"branch: main", "ticket LD-7"}},
		{ID: "q2", Text: "plain", QueuedAt: at},
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0].HookContext, want[0].HookContext) || got[1].HookContext != nil ||
		got[0].ID != "q1" || got[1].ID != "q2" {
		t.Fatalf("queued %+v, want %+v", got, want)
	}
	// The delivering row is followed, in its transaction, by its context as the hook's notes;
	// a message without context is followed by nothing.
	added, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "which branch?", QueuedID: "q1"}},
		store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "plain", QueuedID: "q2"}})
	if err != nil {
		t.Fatal(err)
	}
	var kinds, notes []string
	for _, c := range added {
		kinds = append(kinds, string(c.Kind))
		if c.Kind == store.KindNote {
			notes = append(notes, string(c.Payload))
		}
	}
	if want := []string{"user", "note", "note", "user"}; !reflect.DeepEqual(kinds, want) || len(notes) != 2 ||
		!strings.Contains(notes[0], `"branch: main"`) || !strings.Contains(notes[1], `"ticket LD-7"`) || !strings.Contains(notes[0], `"hook"`) {
		t.Fatalf("delivered rows %v (notes %v), want %v with the two hook notes", kinds, notes, want)
	}
	if got, _ := db.Queued(ctx, s.ID); len(got) != 0 {
		t.Fatalf("after delivery %+v", got)
	}
}
