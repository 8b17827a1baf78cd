package transcript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

func chunk(t *testing.T, seq int64, kind store.Kind, p any) store.Chunk {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return store.Chunk{Seq: seq, Kind: kind, Payload: b}
}

func TestMarkdownReadsAsAConversation(t *testing.T) {
	long := strings.Repeat("line\n", MaxResultLines+40)
	rows := []store.Chunk{
		chunk(t, 1, store.KindUser, store.UserPayload{Text: "list the files"}),
		chunk(t, 2, store.KindAssistant, store.AssistantPayload{Text: "Looking.", Reasoning: "use ls",
			ToolCalls: []store.ToolCall{{ID: "c1", Name: "run_shell_command", Arguments: `{"command":"ls"}`}}}),
		chunk(t, 3, store.KindApproval, store.ApprovalPayload{CallID: "c1", Tool: "run_shell_command", Decision: "approved", By: "person"}),
		chunk(t, 4, store.KindToolResult, store.ToolResultPayload{CallID: "c1", Name: "run_shell_command", Content: "a.txt\n```\nb.txt"}),
		chunk(t, 5, store.KindToolResult, store.ToolResultPayload{CallID: "c2", Name: "read_file", Content: long}),
		chunk(t, 6, store.KindUsage, store.UsagePayload{Reason: "x"}),
		chunk(t, 7, store.KindAssistant, store.AssistantPayload{Text: "Two files."}),
	}
	var out strings.Builder
	s := store.Session{ID: "s1", Title: "files", Workspace: "/w", Model: "m", CreatedAt: time.Unix(0, 0)}
	if err := Markdown(&out, s, rows, Options{}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{
		"# files\n", "- Folder: `/w`", "## You (#1)\n\nlist the files", "## Assistant (#2)", "<summary>Reasoning</summary>",
		"### Tool call `run_shell_command`", "\"command\": \"ls\"", "**Approved** `run_shell_command` (by person)",
		"````\na.txt\n```\nb.txt\n````", // a longer fence: the result's own ``` cannot close it
		"40 more lines", "the JSON export", "## Assistant (#7)\n\nTwo files.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "line\n") > MaxResultLines || strings.Contains(md, "usage") {
		t.Errorf("a long result was not cut, or a usage row was shown:\n%s", md)
	}
}

// A child session's transcript names the task call that started it; a fork names its row.
func TestMarkdownHeaderNamesTheLineage(t *testing.T) {
	for _, c := range []struct {
		s    store.Session
		want string
	}{
		{store.Session{ID: "c", Title: "count", ParentID: "p", ParentCallID: "t1"}, "- Child session started by task call `t1` of `p`\n"},
		{store.Session{ID: "f", Title: "fork", ParentID: "p", ForkSeq: 4}, "- Forked from `p` after row 4\n"},
	} {
		var out strings.Builder
		if err := Markdown(&out, c.s, nil, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: the header lacks %q:\n%s", c.s.ID, c.want, out.String())
		}
	}
}

// An image a provider refused is named so on its message; the image_excluded row itself is
// not a section of its own.
func TestMarkdownMarksAnExcludedImage(t *testing.T) {
	h1, h2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	rows := []store.Chunk{
		chunk(t, 1, store.KindUser, store.UserPayload{Text: "look", Images: []store.ImageRef{
			{Hash: h1, MIME: "image/png", Width: 2, Height: 2, Name: "kept.png"}, {Hash: h2, MIME: "image/png", Width: 2, Height: 2, Name: "bad.png"}}}),
		chunk(t, 2, store.KindImageExcluded, store.ImageExcludedPayload{Images: []store.ExcludedImage{{Seq: 1, Hash: h2}}, Reason: "400 Invalid image."}),
	}
	var out strings.Builder
	if err := Markdown(&out, store.Session{ID: "s", Title: "t"}, rows, Options{}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	if !strings.Contains(md, "- Image: bad.png, 2x2, sha256 "+h2+" (excluded from context)") ||
		strings.Contains(md, "kept.png, 2x2, sha256 "+h1+" (excluded") || strings.Contains(md, "image_excluded") {
		t.Fatalf("transcript:\n%s", md)
	}
}
