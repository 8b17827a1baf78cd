package store_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A child session's export keeps what links it to the task call that started it: imported
// (here into another database, as when moved to another machine) it is still the child of
// that call, and `sessions list --json` can show both fields.
func TestExportImportKeepsAChildsParentCall(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	parent := mustSession(t, db, "parent")
	mustAppend(t, db, parent.ID, "r1", user("split the work"))
	mustAppend(t, db, parent.ID, "r1", assistant("", call("t1", "task", `{"description":"count","prompt":"count"}`)))
	child, err := db.CreateSession(ctx, store.NewSession{Title: "count", Workspace: "/w", Model: "m", ParentID: parent.ID, ParentCallID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if child.ForkSeq != 2 {
		t.Fatalf("the child hangs under row %d, want 2 (the parent's row holding t1)", child.ForkSeq)
	}
	mustAppend(t, db, child.ID, "r2", user("count"), assistant("Three."))
	mustAppend(t, db, parent.ID, "r1", result("t1", "task", "Three."))

	var buf bytes.Buffer
	if err := db.Export(ctx, child.ID, &buf); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(buf.String(), "\n", 2)[0]
	if !strings.Contains(first, `"parent_call_id":"t1"`) || !strings.Contains(first, `"parent_id":"`+parent.ID+`"`) {
		t.Fatalf("the export's session line lacks the child's link: %s", first)
	}
	other, _ := openTemp(t)
	imp, err := other.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if imp.ParentID != parent.ID || imp.ParentCallID != "t1" || imp.ForkSeq != 2 {
		t.Fatalf("imported child: parent_id %q parent_call_id %q", imp.ParentID, imp.ParentCallID)
	}
	got, err := other.GetSession(ctx, imp.ID)
	if err != nil || got.ParentCallID != "t1" || got.ParentID != parent.ID {
		t.Fatalf("stored import %+v %v", got, err)
	}
	// Imported next to its parent, the copy is found as the child of the same call.
	imp2, err := db.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := db.ChildOf(ctx, parent.ID, "t1"); err != nil || c.ID != imp2.ID {
		t.Fatalf("child of t1 after import: %+v %v", c, err)
	}
}

// A session line naming a call but no parent is refused, and nothing is stored.
func TestImportRefusesAParentCallWithoutAParent(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	line := `{"type":"session","format":1,"session":{"id":"x","title":"t","workspace":"/w","model":"m","parent_call_id":"t1"}}` + "\n"
	_, err := db.Import(ctx, strings.NewReader(line))
	if !errors.Is(err, store.ErrBadImport) || !strings.Contains(err.Error(), "parent_call_id") {
		t.Fatalf("want ErrBadImport naming parent_call_id, got %v", err)
	}
	if l, _ := db.ListSessions(ctx); len(l) != 0 {
		t.Fatalf("a refused import stored %d sessions", len(l))
	}
}

// A child hangs under the latest row holding its call (call ids repeat across runs), and
// under no row when its call is not stored.
func TestChildHangsUnderItsCallRow(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	p := mustSession(t, db, "parent")
	mustAppend(t, db, p.ID, "r1", user("one"), assistant("", call("t1", "task", `{}`)), result("t1", "task", "x"))
	mustAppend(t, db, p.ID, "r2", user("two"), assistant("", call("t0", "read_file", `{}`), call("t1", "task", `{}`)))
	for _, c := range []struct {
		call string
		want int64
	}{{"t1", 5}, {"t9", 0}} {
		s, err := db.CreateSession(ctx, store.NewSession{Title: c.call, ParentID: p.ID, ParentCallID: c.call})
		if err != nil || s.ForkSeq != c.want {
			t.Fatalf("child of %s: row %d, want %d (%v)", c.call, s.ForkSeq, c.want, err)
		}
	}
}
