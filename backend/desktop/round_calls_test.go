package desktop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// importRows makes a session of n rows in groups of four (question, read_file call, its
// result, an answer), as e2e/tests/ui-measure.test.mjs does, and returns its id.
func importRows(t testing.TB, dbPath string, n int) string {
	t.Helper()
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Now().UTC().Format(time.RFC3339Nano)
	var b strings.Builder
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "session", "format": 1, "session": map[string]any{"id": "big", "title": fmt.Sprint(n, " rows"), "workspace": "", "model": "fake-model", "created_at": at, "updated_at": at}})
	for seq := 1; seq <= n; seq++ {
		g := (seq - 1) / 4
		kinds := []string{"user", "assistant", "tool_result", "assistant"}
		payloads := []any{
			map[string]any{"text": fmt.Sprintf("Question %d", g)},
			map[string]any{"text": "", "tool_calls": []any{map[string]any{"id": fmt.Sprint("c", g), "name": "read_file", "arguments": fmt.Sprintf(`{"path":"src/file%d.go"}`, g)}}},
			map[string]any{"call_id": fmt.Sprint("c", g), "name": "read_file", "content": fmt.Sprintf("package main\n// file %d\n", g)},
			map[string]any{"text": fmt.Sprintf("File %d defines **f%d**.", g, g)},
		}
		line(map[string]any{"type": "chunk", "seq": seq, "kind": kinds[(seq-1)%4], "payload": payloads[(seq-1)%4], "run_id": "", "created_at": at})
	}
	s, err := db.Import(context.Background(), strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// TestPageCallsPerRoundDoNotGrowWithTheSession times the reads the page makes on each stored
// row of a tool round (touched files after the new rows, versions, runs, totals, hooks, live
// state, the session list) in a 10-row and a 10,000-row session: a tool round at 10,000 rows
// may take at most 1.5x the one at 10 rows (docs/benchmarks.md), and these run beside it.
func TestPageCallsPerRoundDoNotGrowWithTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 10,000-row session")
	}
	app := newTestApp(t, "http://127.0.0.1:1")
	small := importRows(t, app.dbPath, 12)
	big := importRows(t, app.dbPath, 10_000)
	calls := []struct {
		name string
		fn   func(id string, last int64) error
	}{
		{"TouchedFiles", func(id string, last int64) error { _, err := app.TouchedFiles(id, last-2); return err }},
		{"Branches", func(id string, _ int64) error { _, err := app.Branches(id); return err }},
		{"Runs", func(id string, _ int64) error { _, err := app.Runs(id); return err }},
		{"Totals", func(id string, _ int64) error { _, err := app.Totals(id); return err }},
		{"Hooks", func(id string, _ int64) error { _, err := app.Hooks(id); return err }},
		{"Live", func(id string, _ int64) error { _, err := app.Live(id); return err }},
		{"Children", func(id string, _ int64) error { _, err := app.Children(id); return err }},
		{"ListSessions", func(string, int64) error { _, err := app.ListSessions(); return err }},
		{"RowsAfter", func(id string, last int64) error { _, err := app.RowsAfter(id, last-2); return err }},
	}
	median := func(id string, last int64, fn func(string, int64) error) time.Duration {
		var ds []time.Duration
		for range 15 {
			t0 := time.Now()
			if err := fn(id, last); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	for _, c := range calls {
		s, b := median(small, 12, c.fn), median(big, 10_000, c.fn)
		t.Logf("%-13s 12 rows %8v  10,000 rows %8v", c.name, s, b)
		// A read that grows with the session shows as milliseconds at 10,000 rows.
		if b > 5*time.Millisecond && b > 3*s {
			t.Errorf("%s: %v at 10,000 rows against %v at 12", c.name, b, s)
		}
	}
}

// TestRoundDeliveryDoesNotGrowWithTheSession runs one tool round (a list_dir call, its
// result, an answer) in a 12-row and a 10,000-row session through the desktop services and
// times, on one clock, the answer row's created_at to its rows_stored reaching the page's
// emitter, and the tool result row to the answer row. The window measurement
// (ui-measure's delivery_ms) showed a few ms more at 10,000 rows; this isolates Go's part.
func TestRoundDeliveryDoesNotGrowWithTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 10,000-row session")
	}
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", ApprovalMode: "read-only",
		ContextWindows: []desktop.ContextWindow{{Model: "fake-model", Tokens: 10_000_000}}}); err != nil {
		t.Fatal(err)
	}
	small := importRows(t, app.dbPath, 12)
	big := importRows(t, app.dbPath, 10_000)
	var mu sync.Mutex
	heard := map[string]time.Time{} // answer text -> when its rows_stored was emitted
	app.rec.onEmit = func(ev map[string]any) {
		if ev["type"] != "rows_stored" {
			return
		}
		now := time.Now()
		rows, _ := ev["rows"].([]any)
		for _, r := range rows {
			m, _ := r.(map[string]any)
			p, _ := m["payload"].(map[string]any)
			if s, _ := p["text"].(string); m["kind"] == "assistant" && s != "" {
				mu.Lock()
				heard[s] = now
				mu.Unlock()
			}
		}
	}
	round := func(id, tag string) (toAnswer, delivery time.Duration) {
		answer := "Listed " + tag
		srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "l" + tag, Name: "list_dir", Arguments: `{"path":"."}`}), fakeai.Text(answer))
		runID, err := app.SendMessage(id, "list "+tag)
		if err != nil {
			t.Fatal(err)
		}
		if ev := app.rec.runFinished(t, runID); ev["status"] != "completed" {
			t.Fatalf("run: %v", ev)
		}
		rows, err := app.RowsAfter(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		var result, ans time.Time
		for _, r := range rows {
			switch {
			case r.Kind == store.KindToolResult:
				result = r.CreatedAt
			case r.Kind == store.KindAssistant && strings.Contains(string(r.Payload), answer):
				ans = r.CreatedAt
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return ans.Sub(result), heard[answer].Sub(ans)
	}
	med := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	var sa, sd, ba, bd []time.Duration
	round(small, "warm-s")
	round(big, "warm-b")
	for i := range 5 {
		a, d := round(small, fmt.Sprint("s", i))
		sa, sd = append(sa, a), append(sd, d)
		a, d = round(big, fmt.Sprint("b", i))
		ba, bd = append(ba, a), append(bd, d)
	}
	t.Logf("result row -> answer row: 12 rows %v %v, 10,000 rows %v %v", med(sa), sa, med(ba), ba)
	t.Logf("answer row -> its rows_stored emitted: 12 rows %v %v, 10,000 rows %v %v", med(sd), sd, med(bd), bd)
	// The stored answer reaches the page as soon in a long session as in a short one (generous
	// bounds: two shared cores; single rounds swing by tens of ms).
	if med(bd) > 3*med(sd)+10*time.Millisecond {
		t.Errorf("the answer's rows_stored took %v at 10,000 rows against %v at 12", med(bd), med(sd))
	}
}
