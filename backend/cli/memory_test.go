package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// memoryCmd runs `loopdesk memory ARGS --db DB` and returns its status and output.
func memoryCmd(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Memory(context.Background(), append(args, "--db", db), func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// memoryLines decodes `memory list --json`.
func memoryLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ls []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		ls = append(ls, m)
	}
	return ls
}

// The person adds, edits and removes memories from the command line; list shows the folder's
// project memories and the personal ones with exactly the documented JSON fields, source null
// for the ones the person added; another folder's project memory is not listed.
func TestMemoryCommandsAddEditRemoveList(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	ws, other := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"add", "Run make types after changing a bound type.", "--workspace", ws},
		{"add", "Answer in British English.", "--scope", "personal"},
		{"add", "Another folder's fact.", "--workspace", other},
	} {
		if code, _, errs := memoryCmd(t, db, args...); code != ExitOK {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
	code, out, _ := memoryCmd(t, db, "list", "--json", "--workspace", ws)
	ls := memoryLines(t, out)
	if code != ExitOK || len(ls) != 2 {
		t.Fatalf("list: %d %q", code, out)
	}
	for _, l := range ls {
		if len(l) != 7 || l["source"] != nil || l["id"] == "" || l["created_at"] == nil || l["updated_at"] == nil {
			t.Fatalf("line %v: want exactly id, scope, text, workspace, source (null), created_at, updated_at", l)
		}
	}
	if ls[0]["scope"] != "project" || ls[0]["workspace"] != ws || ls[1]["scope"] != "personal" || ls[1]["workspace"] != "" {
		t.Fatalf("list: %v", ls)
	}
	id := ls[0]["id"].(string)
	if code, _, errs := memoryCmd(t, db, "edit", id, "Run `make types` after changing a bound Go type."); code != ExitOK {
		t.Fatalf("edit: %d %s", code, errs)
	}
	_, out, _ = memoryCmd(t, db, "list", "--workspace", ws)
	if !strings.Contains(out, "Run `make types` after changing a bound Go type.") || !strings.Contains(out, "you") {
		t.Fatalf("list after edit:\n%s", out)
	}
	if code, _, _ := memoryCmd(t, db, "remove", id); code != ExitOK {
		t.Fatal("remove failed")
	}
	if code, _, errs := memoryCmd(t, db, "remove", id); code != ExitOther || !strings.Contains(errs, "not found") {
		t.Fatalf("removing it twice: %d %s", code, errs)
	}
	if _, out, _ = memoryCmd(t, db, "list", "--json", "--workspace", ws); len(memoryLines(t, out)) != 1 {
		t.Fatalf("after remove: %s", out)
	}
}

// Bad input gets a usage error that says what is wrong, before anything is written.
func TestMemoryCommandsRefuseBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"add", "x", "--scope", "team"}, ExitUsage, "--scope is project or personal"},
		{[]string{"add", "x", "--scope", "personal", "--workspace", "/tmp"}, ExitUsage, "every folder"},
		{[]string{"edit", "only-an-id"}, ExitUsage, "wrong number of arguments"},
		{[]string{"accept"}, ExitUsage, "wrong number of arguments"},
		{[]string{"forget", "x"}, ExitUsage, "unknown command"},
		{[]string{"add", "   "}, ExitOther, "a memory needs text"},
		{[]string{"edit", "nope", "text"}, ExitOther, "not found"},
		{[]string{"accept", "nope"}, ExitOther, "not found"},
	} {
		code, _, errs := memoryCmd(t, db, c.args...)
		if code != c.code || !strings.Contains(errs, c.says) {
			t.Errorf("%v: %d %q, want %d saying %q", c.args, code, errs, c.code, c.says)
		}
	}
}

// Importing Claude Code's MEMORY.md makes proposals, never memories; the person accepts one,
// rejects another, and only the accepted one is listed, then exported as Markdown.
func TestMemoryImportProposesAndTheOnesAcceptedAreExported(t *testing.T) {
	db := filepath.Join(t.TempDir(), "i.db")
	ws := t.TempDir()
	file, _ := filepath.Abs("../memory/testdata/MEMORY.md")
	code, out, errs := memoryCmd(t, db, "import", file, "--workspace", ws)
	if code != ExitOK || !strings.Contains(out, "5 proposals") {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if _, out, _ := memoryCmd(t, db, "list", "--json", "--workspace", ws); strings.TrimSpace(out) != "" {
		t.Fatalf("an import made memories by itself: %s", out)
	}
	_, out, _ = memoryCmd(t, db, "proposals", "--json")
	var ps []store.MemoryProposal
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var p store.MemoryProposal
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if len(ps) != 5 || ps[0].Origin != file || ps[0].Workspace != ws {
		t.Fatalf("proposals: %+v", ps)
	}
	if code, _, errs := memoryCmd(t, db, "accept", ps[0].ID, ps[3].ID); code != ExitOK {
		t.Fatalf("accept: %s", errs)
	}
	if code, _, errs := memoryCmd(t, db, "reject", ps[1].ID); code != ExitOK {
		t.Fatalf("reject: %s", errs)
	}
	_, out, _ = memoryCmd(t, db, "proposals", "--json")
	if n := len(strings.Split(strings.TrimSpace(out), "\n")); n != 2 {
		t.Fatalf("proposals left: %d\n%s", n, out)
	}
	_, out, _ = memoryCmd(t, db, "export", "--workspace", ws)
	if !strings.Contains(out, "- "+ps[0].Text+" <!-- memory ") || !strings.Contains(out, "imported from "+file) ||
		!strings.Contains(out, ps[3].Text) || strings.Contains(out, ps[1].Text) {
		t.Fatalf("export:\n%s", out)
	}
}
