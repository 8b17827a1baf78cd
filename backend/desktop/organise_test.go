package desktop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestABigToolOutputReachesThePageCutAndPagesFromGo(t *testing.T) {
	app := newTestApp(t, "")
	ctx := context.Background()
	db, err := store.Open(ctx, app.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.CreateSession(ctx, store.NewSession{Title: "build"})
	var all strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&all, "line %d of the build log\n", i)
	}
	small := "ok\n"
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{ToolCalls: []store.ToolCall{
		{ID: "c1", Name: "run_shell_command", Arguments: `{}`}, {ID: "c2", Name: "run_shell_command", Arguments: `{}`}}}},
		store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "c1", Name: "run_shell_command", Content: all.String()}},
		store.NewChunk{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: "c2", Name: "run_shell_command", Content: small}}); err != nil {
		t.Fatal(err)
	}

	v, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := json.Marshal(v)
	if len(page) > 64<<10 {
		t.Fatalf("the page got %d bytes for a session with a %d-byte output", len(page), all.Len())
	}
	var big struct {
		Content string `json:"content"`
		Cut     struct {
			Tail       string `json:"tail"`
			TotalLines int    `json:"total_lines"`
			TotalBytes int    `json:"total_bytes"`
		} `json:"cut"`
		CallID string `json:"call_id"`
	}
	if err := json.Unmarshal(v.Rows[1].Payload, &big); err != nil {
		t.Fatal(err)
	}
	if big.CallID != "c1" || !strings.HasPrefix(big.Content, "line 1 of") || !strings.HasSuffix(big.Content, "line 60 of the build log\n") ||
		!strings.HasPrefix(big.Cut.Tail, "line 19941 of") || !strings.HasSuffix(big.Cut.Tail, "line 20000 of the build log\n") ||
		big.Cut.TotalLines != 20000 || big.Cut.TotalBytes != all.Len() {
		t.Fatalf("the cut row: head %q…, tail %q…, %+v", big.Content[:20], big.Cut.Tail[:20], big.Cut.TotalLines)
	}
	if !strings.Contains(string(v.Rows[2].Payload), `"content":"ok\n"`) || strings.Contains(string(v.Rows[2].Payload), `"cut"`) {
		t.Fatalf("a small output is sent whole: %s", v.Rows[2].Payload)
	}
	// The rows themselves are whole.
	if rows, _ := db.Chunks(ctx, s.ID); !strings.Contains(string(rows[1].Payload), "line 10000 of") {
		t.Fatal("the stored row was cut")
	}

	mid, err := app.ToolOutput(s.ID, 2, 9999, 10001)
	if err != nil || mid.Text != "line 10000 of the build log\nline 10001 of the build log\n" || mid.Total != 20000 || mid.From != 9999 || mid.To != 10001 {
		t.Fatalf("ToolOutput(9999, 10001) = %+v, %v", mid, err)
	}
	whole, err := app.ToolOutput(s.ID, 2, 0, 0)
	if err != nil || whole.Text != all.String() {
		t.Fatalf("ToolOutput(0, 0): %d bytes, %v", len(whole.Text), err)
	}
	if _, err := app.ToolOutput(s.ID, 1, 0, 0); err == nil {
		t.Fatal("ToolOutput of an assistant row")
	}
}

func TestDeleteSessionsSaysWhatWentAndSizesAreShown(t *testing.T) {
	app := newTestApp(t, "")
	ctx := context.Background()
	db, err := store.Open(ctx, app.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, _ := db.CreateSession(ctx, store.NewSession{Title: "a"})
	b, _ := db.CreateSession(ctx, store.NewSession{Title: "b"})
	db.Append(ctx, a.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: strings.Repeat("x", 5000)}})
	size, err := app.SessionSize(a.ID)
	if err != nil || size.Rows < 5000 || size.Total != size.Rows {
		t.Fatalf("SessionSize = %+v, %v", size, err)
	}
	if err := app.ArchiveSessions([]string{b.ID}, true); err != nil {
		t.Fatal(err)
	}
	if l, _ := app.ListSessions(); len(l) != 1 || l[0].ID != a.ID {
		t.Fatalf("the list shows %+v", l)
	}
	if l, _ := app.ListArchived(); len(l) != 1 || l[0].ID != b.ID || !l[0].Archived {
		t.Fatalf("archived: %+v", l)
	}
	if err := app.MoveToProject([]string{a.ID, b.ID}, "P"); err != nil {
		t.Fatal(err)
	}
	if p, _ := app.Projects(); len(p) != 1 || p[0] != "P" {
		t.Fatalf("projects = %v", p)
	}
	app.dialogs.folder = t.TempDir()
	if dir, err := app.ExportSessions([]string{a.ID, b.ID}); err != nil || dir != app.dialogs.folder {
		t.Fatalf("ExportSessions = %q, %v", dir, err)
	}
	if files, _ := filepath.Glob(filepath.Join(app.dialogs.folder, "*.jsonl")); len(files) != 2 {
		t.Fatalf("exported files: %v", files)
	}
	ds, err := app.DeleteSessions([]string{a.ID, b.ID})
	if err != nil || len(ds) != 2 || ds[0].Rows != 1 || ds[0].Bytes != size.Total {
		t.Fatalf("DeleteSessions = %+v, %v", ds, err)
	}
	fs, err := app.DatabaseSize()
	if fi, _ := os.Stat(app.dbPath); err != nil || fs.Bytes < fi.Size() || fs.Path != filepath.Clean(app.dbPath) {
		t.Fatalf("DatabaseSize = %+v, %v", fs, err)
	}
}
