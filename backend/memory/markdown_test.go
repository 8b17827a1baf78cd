package memory

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// A Claude Code MEMORY.md gives one entry per list item (continuation lines with it) and per
// paragraph; headings are not entries.
func TestEntriesOfAClaudeCodeMemoryFile(t *testing.T) {
	body, err := os.ReadFile("testdata/MEMORY.md")
	if err != nil {
		t.Fatal(err)
	}
	got := Entries("/home/p/.claude/projects/-work-app/memory/MEMORY.md", string(body))
	want := []string{
		"Run `make test-go` before committing; the full `make test` takes 15 minutes.",
		"The frontend needs Node 20: vitest 5 does not start on it.",
		"Errors are wrapped with what was being done:\n`fmt.Errorf(\"fork session %s: %w\", id, err)`.",
		"Tests use a real SQLite file in t.TempDir(), never mocks.",
		"See [debugging.md](debugging.md) for the notes on flaky e2e tests.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries:\n%q\nwant\n%q", got, want)
	}
}

// Of an AGENTS.md only the "## Memory" section is read: the rest is instructions, carried
// already as the instruction file.
func TestEntriesOfAnAgentsFileAreItsMemorySection(t *testing.T) {
	body, err := os.ReadFile("testdata/AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	got := Entries("/work/app/AGENTS.md", string(body))
	want := []string{"The API key is read from OPENAI_API_KEY only.", "Never edit generated files under frontend/wailsjs."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	if got := Entries("AGENTS.md", "# Rules\n\n- one\n"); len(got) != 0 {
		t.Fatalf("an AGENTS.md with no Memory section gave %q", got)
	}
}

// Export then Entries gives back the memories' texts: the provenance is a comment.
func TestExportReadsBackAsTheSameTexts(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	ms := []store.Memory{
		{ID: "a1", Scope: store.MemoryProject, Text: "Use make types after changing bound types.", Workspace: "/w",
			Source: &store.MemorySource{SessionID: "s1", Seq: 7}, CreatedAt: at, UpdatedAt: at},
		{ID: "b2", Scope: store.MemoryPersonal, Text: "Answer in British English.\nKeep it short.", CreatedAt: at, UpdatedAt: at},
	}
	md := Export(ms, "/w")
	want := "# Memories of /w\n\n## Project\n\n" +
		"- Use make types after changing bound types. <!-- memory a1, from session s1 row 7 -->\n\n## Personal\n\n" +
		"- Answer in British English.\n  Keep it short. <!-- memory b2, added by the person -->\n"
	if md != want {
		t.Fatalf("export:\n%s\nwant\n%s", md, want)
	}
	if got := Entries("export.md", md); !reflect.DeepEqual(got, []string{ms[0].Text, ms[1].Text}) {
		t.Fatalf("read back %q", got)
	}
}
