package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

func TestSuggestRuleProposesTheNarrowestUsefulPattern(t *testing.T) {
	cases := []struct {
		call tools.Call
		want string
	}{
		{tools.Call{Name: "run_shell_command", Arguments: `{"command":"  go test ./...  "}`}, "go test ./..."},
		{tools.Call{Name: "write_file", Arguments: `{"path":"src/a.go","content":"x"}`}, "src/a.go"},
		{tools.Call{Name: "list_dir", Arguments: `{}`}, "*"},
		{tools.Call{Name: "write_file", Arguments: `not json`}, "*"},
	}
	for _, c := range cases {
		r := stack.SuggestRule("s1", c.call)
		if r.Pattern != c.want || r.Tool != c.call.Name || r.Scope != "session" || r.Effect != "allow" || r.SessionID != "s1" {
			t.Errorf("SuggestRule(%s %s) = %+v; want pattern %q, session scope, allow", c.call.Name, c.call.Arguments, r, c.want)
		}
	}
	n := stack.NewRule(RuleInput{Tool: "run_shell_command", Pattern: " git status* ", Effect: "allow", Scope: "workspace"},
		store.Session{ID: "s1", Workspace: "/w"})
	if n.ScopeID != "/w" || n.Pattern != "git status*" {
		t.Errorf("a workspace rule = %+v; want scoped to the folder", n)
	}
}

func TestReadFilesLinksEachReadToItsRow(t *testing.T) {
	row := func(seq int64, calls ...store.ToolCall) store.Chunk {
		b, _ := json.Marshal(store.AssistantPayload{ToolCalls: calls})
		return store.Chunk{Seq: seq, Kind: store.KindAssistant, Payload: b}
	}
	rows := []store.Chunk{
		{Seq: 1, Kind: store.KindUser, Payload: json.RawMessage(`{"text":"read_file"}`)},
		row(2, store.ToolCall{ID: "a", Name: "read_file", Arguments: `{"path":"./README.md"}`},
			store.ToolCall{ID: "b", Name: "run_shell_command", Arguments: `{"command":"ls"}`}),
		row(4, store.ToolCall{ID: "c", Name: "edit_file", Arguments: `{"path":"/etc/passwd"}`},
			store.ToolCall{ID: "d", Name: "write_file", Arguments: `{"path":"docs/x.md","content":""}`}),
	}
	norm := func(p string) string {
		if strings.HasPrefix(p, "/") {
			return "" // outside
		}
		return strings.TrimPrefix(p, "./")
	}
	// Writes and edits are not guessed from their arguments: the checkpoints record what
	// changed (TestTouchedFilesComeFromTheCheckpoints).
	got := ReadFiles(rows, norm)
	want := []Touched{{Path: "README.md", Seq: 2, Tool: "read_file"}}
	if len(got) != len(want) || got[0] != want[0] {
		t.Fatalf("ReadFiles = %+v; want %+v", got, want)
	}
}

func TestReadFilePreviewsTextOnlyAndCapsSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("text.txt", []byte("héllo\n"))
	write("bin.dat", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2})
	big := []byte("a" + strings.Repeat("é", MaxPreview)) // 2 bytes each: the cut falls inside one
	write("big.txt", big)
	ws, err := tools.NewManager().Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Release()

	if p, err := ReadFile(ws, "text.txt"); err != nil || p.Content != "héllo\n" || p.Binary || p.Truncated {
		t.Errorf("text = %+v, %v", p, err)
	}
	if p, err := ReadFile(ws, "bin.dat"); err != nil || !p.Binary || p.Content != "" {
		t.Errorf("binary = %+v, %v", p, err)
	}
	if p, err := ReadFile(ws, "big.txt"); err != nil || !p.Truncated || p.Binary || len(p.Content) != MaxPreview-1 {
		t.Errorf("big: truncated %v binary %v len %d, %v", p.Truncated, p.Binary, len(p.Content), err)
	}
	if _, err := ReadFile(ws, "../"+filepath.Base(dir)+"/../x"); err == nil {
		t.Error("a path leaving the workspace was read")
	}
	files, err := ListFiles(t.Context(), ws)
	if err != nil || len(files) != 3 || files[0].Path != "big.txt" || files[0].Size != int64(len(big)) {
		t.Fatalf("ListFiles = %+v, %v", files, err)
	}
}
