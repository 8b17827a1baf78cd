package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The session list a page at a time: pages follow one another without a session missed or
// repeated (several updated in the same millisecond among them), archived ones apart, and the
// projects. sizes are counted, the most recent project first.
func TestTheSessionListComesAPageAtATime(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	want := map[string]bool{}
	for i := range 250 {
		s := mustSession(t, db, fmt.Sprintf("s%d", i))
		switch {
		case i%50 == 7:
			if err := db.SetArchived(ctx, []string{s.ID}, true); err != nil {
				t.Fatal(err)
			}
			continue
		case i%3 == 0:
			if err := db.SetProject(ctx, []string{s.ID}, fmt.Sprintf("p%d", i%2)); err != nil {
				t.Fatal(err)
			}
		}
		want[s.ID] = true
	}
	seen := map[string]bool{}
	after, pages := "", 0
	var last store.Session
	for {
		page, err := db.ListSessionsPage(ctx, store.ListFilter{}, after, 40)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range page.Sessions {
			if seen[s.ID] || !want[s.ID] {
				t.Fatalf("page %d: %s (%s) again or not to be listed", pages, s.ID, s.Title)
			}
			if last.ID != "" && s.UpdatedAt.After(last.UpdatedAt) {
				t.Fatalf("%s listed after %s, updated later", s.Title, last.Title)
			}
			seen[s.ID], last = true, s
		}
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	if len(seen) != len(want) || pages != 7 {
		t.Fatalf("%d sessions in %d pages, want %d in 7", len(seen), pages, len(want))
	}
	if n, err := db.CountSessions(ctx, store.ListFilter{}); err != nil || n != len(want) {
		t.Fatalf("count %d, %v; want %d", n, err, len(want))
	}
	archived, err := db.ListSessionsPage(ctx, store.ListFilter{Archived: true}, "", 40)
	if err != nil || len(archived.Sessions) != 5 || archived.Next != "" {
		t.Fatalf("archived: %d, next %q, %v", len(archived.Sessions), archived.Next, err)
	}
	counts, err := db.ProjectCounts(ctx, false)
	if err != nil || len(counts) != 2 || counts[0].Sessions+counts[1].Sessions != 82 || counts[0].Project != "p1" {
		t.Fatalf("project counts %+v, %v", counts, err)
	}
	if _, err := db.ListSessionsPage(ctx, store.ListFilter{}, "nonsense", 40); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a bad cursor: %v", err)
	}
}
