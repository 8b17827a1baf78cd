package historybench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/cli"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The bench's journal has the shape the issue asks for, at the tiny size: every session
// listed by the product's own command, the long one with compaction summaries and a large
// output, a child under a task call, forks, images; and a second Cached finds it built.
func TestTinyJournalHasEveryKindOfSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := Cached(ctx, dir, Tiny)
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := cli.Sessions(ctx, []string{"list", "--json", "--db", j.Path}, &out, &errs); code != 0 {
		t.Fatalf("sessions list: %d %s", code, errs.String())
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != Tiny.Sessions {
		t.Fatalf("sessions list --json listed %d sessions, want %d", n, Tiny.Sessions)
	}
	db, err := store.Open(ctx, j.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all, err := db.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The sessions the window's bench clicks are the newest: at the head of the list.
	if all[0].Title != SmallTitle || all[1].Title != TenTitle {
		t.Errorf("newest sessions %q, %q, want %q, %q", all[0].Title, all[1].Title, SmallTitle, TenTitle)
	}
	var forks, children int
	titles := map[string]bool{}
	for _, s := range all {
		if titles[s.Title] && !strings.HasPrefix(s.Title, "session ") {
			t.Errorf("two sessions titled %q", s.Title)
		}
		titles[s.Title] = true
		switch {
		case s.ParentCallID != "":
			children++
		case s.ParentID != "" && s.ForkSeq > 0:
			forks++
		}
	}
	if forks != Tiny.Forks || children != Tiny.Children+1 { // one more under the long one
		t.Errorf("%d forks and %d children, want %d and %d", forks, children, Tiny.Forks, Tiny.Children+1)
	}
	rows, err := db.Chunks(ctx, j.Big)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != Tiny.BigRows {
		t.Fatalf("the long session has %d rows, want %d", len(rows), Tiny.BigRows)
	}
	var summaries, images, largest int
	for _, c := range rows {
		switch c.Kind {
		case store.KindSummary:
			summaries++
		case store.KindUser:
			var p store.UserPayload
			_ = json.Unmarshal(c.Payload, &p)
			for _, im := range p.Images {
				if _, err := db.GetBlob(ctx, im.Hash); err != nil {
					t.Errorf("row %d names image %s: %v", c.Seq, im.Hash, err)
				}
				images++
			}
		case store.KindToolResult:
			var p store.ToolResultPayload
			_ = json.Unmarshal(c.Payload, &p)
			largest = max(largest, len(p.Content))
		}
	}
	if summaries < Tiny.BigRows/Tiny.CompactEvery-1 || images != 1 || largest < 8<<10 || largest > Tiny.MaxOutput {
		t.Errorf("the long session: %d summaries, %d images, largest output %d bytes", summaries, images, largest)
	}
	kids, err := db.Children(ctx, j.Big)
	if err != nil || len(kids) != 1 {
		t.Errorf("children of the long session: %v, %v", kids, err)
	}
	for _, id := range append([]string{j.Small, j.Ten, j.Tail}, j.Long...) {
		if _, err := db.GetSession(ctx, id); err != nil {
			t.Error(err)
		}
	}
	st, _ := os.Stat(filepath.Join(dir, fmt.Sprintf("v%d-tiny", JournalVersion), "journal.json"))
	again, err := Cached(ctx, dir, Tiny)
	if err != nil || again.Big != j.Big {
		t.Fatalf("cached again: %v, big %s, want %s", err, again.Big, j.Big)
	}
	if st2, _ := os.Stat(filepath.Join(dir, fmt.Sprintf("v%d-tiny", JournalVersion), "journal.json")); st == nil || !st2.ModTime().Equal(st.ModTime()) {
		t.Error("the second Cached built the journal again")
	}
}
