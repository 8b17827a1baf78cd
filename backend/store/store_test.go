package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestSessionLifecycle(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	a := mustSession(t, db, "first")
	b := mustSession(t, db, "second")
	mustAppend(t, db, a.ID, "", user("hello"))

	list, err := db.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("want the session appended to last first, got %+v", list)
	}
	if err := db.RenameSession(ctx, b.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openPath(t, path)
	got, err := db.GetSession(ctx, b.ID)
	if err != nil || got.Title != "renamed" || got.Workspace != "/w" || got.Model != "m" {
		t.Fatalf("after reopen: %+v %v", got, err)
	}
	if err := db.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"get":    func() error { _, err := db.GetSession(ctx, a.ID); return err }(),
		"chunks": func() error { _, err := db.Chunks(ctx, a.ID); return err }(),
		"rename": db.RenameSession(ctx, a.ID, "x"),
		"delete": db.DeleteSession(ctx, a.ID),
		"append": func() error { _, err := db.Append(ctx, a.ID, "", user("x")); return err }(),
	} {
		if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), a.ID) {
			t.Errorf("%s on a deleted session: want ErrNotFound naming it, got %v", name, err)
		}
	}
}

func TestAppendSeqAndPairing(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	cs, err := db.Chunks(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if c.Seq != int64(i+1) {
			t.Fatalf("row %d has seq %d", i, c.Seq)
		}
	}
	// Rows that would make the next request invalid are refused, and
	// nothing of a refused batch is written.
	mustAppend(t, db, s.ID, "", assistant("", call("c9", "read_file", "{}")))
	bad := [][]store.NewChunk{
		{user("while a call waits")},
		{result("nope", "read_file", "x")},
		{result("c9", "read_file", "ok"), result("c9", "read_file", "twice")},
		{assistant("again", call("c10", "read_file", "{}"))},
	}
	for _, batch := range bad {
		if _, err := db.Append(ctx, s.ID, "", batch...); !errors.Is(err, store.ErrUnpaired) {
			t.Errorf("batch %+v: want ErrUnpaired, got %v", batch, err)
		}
	}
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: "bogus", Payload: store.UserPayload{}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("unknown kind: %v", err)
	}
	after, _ := db.Chunks(ctx, s.ID)
	if len(after) != len(cs)+1 {
		t.Fatalf("refused appends wrote rows: %d -> %d", len(cs)+1, len(after))
	}
	got := mustAppend(t, db, s.ID, "", result("c9", "read_file", "ok"), user("next"))
	if got[0].Seq != int64(len(cs)+2) || got[1].Seq != int64(len(cs)+3) {
		t.Fatalf("seqs after refused appends have a gap: %d %d", got[0].Seq, got[1].Seq)
	}
}

func TestMessagesWireFormat(t *testing.T) {
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	conversation(t, db, s.ID)
	ms := messagesOf(t, db, s.ID)
	want := []string{
		`{"role":"user","content":"list the files <please> & read go.mod"}`,
		`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}},{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"go.mod\" }"}}]}`,
		`{"role":"tool","tool_call_id":"c1","content":"go.mod\nmain.go"}`,
		`{"role":"tool","tool_call_id":"c2","content":"module example.com/x\n"}`,
		`{"role":"assistant","content":"The module is example.com/x."}`,
	}
	if len(ms) != len(want) {
		t.Fatalf("got %d messages: %s", len(ms), ms)
	}
	for i := range want {
		if string(ms[i]) != want[i] {
			t.Errorf("message %d:\n got %s\nwant %s", i, ms[i], want[i])
		}
	}
}

func TestSettings(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	if _, ok, err := db.GetSetting(ctx, "model"); ok || err != nil {
		t.Fatalf("unset setting: %v %v", ok, err)
	}
	if err := db.SetSetting(ctx, "model", "a"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "model", "b"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := db.GetSetting(ctx, "model"); v != "b" || !ok || err != nil {
		t.Fatalf("got %q %v %v", v, ok, err)
	}
	for _, k := range []string{"openai_api_key", "OPENAI_API_KEY", "provider.apiKey", "secret"} {
		if err := db.SetSetting(ctx, k, "sk-x"); !errors.Is(err, store.ErrSecret) {
			t.Errorf("setting %s: want ErrSecret, got %v", k, err)
		}
	}
}

func TestMessagesSummaryAndSystem(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	mustAppend(t, db, s.ID, "", store.NewChunk{Kind: store.KindSystem, Payload: store.SystemPayload{Text: "be brief"}})
	conversation(t, db, s.ID) // rows 2..7, tool turn at 3..6
	// A summary may not cut a tool turn in half.
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "x", ThroughSeq: 4}}); !errors.Is(err, store.ErrUnpaired) {
		t.Fatalf("summary through mid-turn: %v", err)
	}
	for _, through := range []int64{0, 8, 99} {
		if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "x", ThroughSeq: through}}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("summary through %d: %v", through, err)
		}
	}
	mustAppend(t, db, s.ID, "", store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "We read go.mod.", ThroughSeq: 6}})
	mustAppend(t, db, s.ID, "", user("next"))
	ms := messagesOf(t, db, s.ID)
	want := []string{
		`{"role":"system","content":"be brief"}`,
		`{"role":"user","content":"` + jsonText(store.Frame("A summary of rows 1–6 of this conversation, which it replaces to save context:\n\nWe read go.mod.")) + `"}`,
		`{"role":"assistant","content":"The module is example.com/x."}`,
		`{"role":"user","content":"next"}`,
	}
	if len(ms) != len(want) {
		t.Fatalf("got %s", ms)
	}
	for i := range want {
		if string(ms[i]) != want[i] {
			t.Errorf("message %d: got %s want %s", i, ms[i], want[i])
		}
	}
	// The rows themselves are all still there: compaction never deletes.
	if rows, _ := db.Chunks(ctx, s.ID); len(rows) != 9 {
		t.Fatalf("rows after summary: %d", len(rows))
	}
}
