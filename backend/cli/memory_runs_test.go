package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/memory"
	"github.com/loopdesk/loopdesk/backend/store"
)

// notesOf are the memory notes the request carried, in order: user messages in Loopdesk's
// note frame that speak of memories.
func notesOf(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range req.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			continue
		}
		if m.Role == "user" && strings.HasPrefix(text, store.NotePrefix) && strings.Contains(strings.ToLower(text), "memories") {
			out = append(out, text)
		}
	}
	return out
}

func (e *runEnv) lastBody() []byte {
	rs := e.srv.Requests()
	return rs[len(rs)-1].Body
}

// A run carries exactly the memories the person approved, as one framed note; a later run
// of the session re-sends that row unchanged (a memory edited since does not change it) and
// adds a note saying only what changed; a run when nothing changed adds none; a fork and an
// export/import send exactly what the original sent.
func TestRunsCarryTheApprovedMemoriesAsNotes(t *testing.T) {
	e := runNewEnv(t)
	ctx := context.Background()
	db, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	folder, _ := memory.Folder(e.ws)
	a, err := db.AddMemory(ctx, store.NewMemory{Scope: store.MemoryProject, Workspace: folder, Text: "Run make types after changing a bound Go type."})
	if err != nil {
		t.Fatal(err)
	}
	db.AddMemory(ctx, store.NewMemory{Scope: store.MemoryPersonal, Text: "Answer in British English."})
	db.AddMemory(ctx, store.NewMemory{Scope: store.MemoryProject, Workspace: t.TempDir(), Text: "Another folder's."})
	if _, err := db.ProposeMemories(ctx, []store.MemoryProposal{{Scope: store.MemoryProject, Workspace: folder, Text: "A proposal.", Origin: "/x/MEMORY.md"}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 5 {
		e.srv.Enqueue(fakeai.Text("ok"))
	}
	run := func(args ...string) string {
		t.Helper()
		return runSessionID(t, e.run(ctx, "", append([]string{"--sandbox", "off", "--json"}, args...)...))
	}
	sid := run("hello")
	first := notesOf(t, e.lastBody())
	if len(first) != 1 {
		t.Fatalf("the first request carried %d memory notes", len(first))
	}
	golden(t, "memory_note_first", first[0]) // testdata/versions: the request goldens

	db, _ = store.Open(ctx, e.db)
	if _, err := db.EditMemory(ctx, a.ID, "Run `make types` after changing any Go type the window binds."); err != nil {
		t.Fatal(err)
	}
	db.Close()
	run("--session", sid, "again")
	second := notesOf(t, e.lastBody())
	if len(second) != 2 || second[0] != first[0] {
		t.Fatalf("the stored note was not re-sent unchanged:\n%q", second)
	}
	golden(t, "memory_note_change", second[1])

	run("--session", sid, "once more")
	if third := notesOf(t, e.lastBody()); len(third) != 2 {
		t.Fatalf("a run with nothing changed added a note: %d notes", len(third))
	}

	db, _ = store.Open(ctx, e.db)
	// The notes are rows like any other: search finds them.
	hits, err := db.Search(ctx, "British", 10)
	if err != nil || len(hits) != 1 || hits[0].Kind != store.KindNote || hits[0].SessionID != sid {
		t.Fatalf("search for a memory's word: %+v %v", hits, err)
	}
	rows, _ := db.Chunks(ctx, sid)
	fork, err := db.Fork(ctx, sid, rows[len(rows)-1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	var exported bytes.Buffer
	if err := db.Export(ctx, sid, &exported); err != nil {
		t.Fatal(err)
	}
	imported, err := db.Import(ctx, &exported)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, s := range []string{fork.ID, imported.ID} {
		run("--session", s, "from the copy")
		if got := notesOf(t, e.lastBody()); len(got) != 2 || got[0] != first[0] || got[1] != second[1] {
			t.Fatalf("session %s sent other memory notes than the original:\n%q", s, got)
		}
	}
}
