package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// `run --mode plan` refuses writes and records the mode; `sessions totals --json` prints one
// object with exactly the documented fields, summed over both runs, and `sessions list
// --json` carries the same numbers.
func TestRunPlanModeAndSessionTotals(t *testing.T) {
	e := runNewEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}).WithUsage(100, 10, 0),
		fakeai.Text("Plan: 1. write x.txt").WithUsage(150, 20, 0),
	)
	r := e.run(context.Background(), "", "--json", "--approve", "auto", "--mode", "plan", "make x.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan mode wrote a file: %v", err)
	}
	var sid string
	for _, l := range runLines(t, r.stdout) {
		if l["type"] == "run_started" && l["mode"] != "plan" {
			t.Fatalf("run_started mode %v", l["mode"])
		}
		if l["type"] == "tool_finished" && !strings.Contains(l["content"].(string), "plan mode") {
			t.Fatalf("refusal does not say plan mode: %v", l["content"])
		}
		sid, _ = l["session_id"].(string)
	}
	e.srv.Enqueue(fakeai.Text("done").WithUsage(200, 5, 0))
	if r := e.run(context.Background(), "", "--session", sid, "--approve", "auto", "go"); r.code != 0 {
		t.Fatalf("second run exit %d %s", r.code, r.stderr)
	}
	var out, errb strings.Builder
	if code := Sessions(context.Background(), []string{"totals", "--json", "--db", e.db, sid}, &out, &errb); code != 0 {
		t.Fatalf("totals exit %d %s", code, errb.String())
	}
	var tot map[string]any
	if err := json.Unmarshal([]byte(out.String()), &tot); err != nil || strings.Count(strings.TrimSpace(out.String()), "\n") != 0 {
		t.Fatalf("not one object: %q", out.String())
	}
	var keys []string
	for k := range tot {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// "children" is [] for a session that started none.
	want := []string{"cache_read_tokens", "cache_write_tokens", "children", "cost", "input_tokens", "output_tokens", "runs", "session_id", "tool_calls", "turns"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("fields %v, want %v", keys, want)
	}
	if tot["session_id"] != sid || tot["runs"] != 2.0 || tot["turns"] != 3.0 || tot["tool_calls"] != 1.0 ||
		tot["input_tokens"] != 450.0 || tot["output_tokens"] != 35.0 {
		t.Fatalf("totals %v", tot)
	}
	out.Reset()
	if code := Sessions(context.Background(), []string{"list", "--json", "--db", e.db}, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	var row map[string]any
	_ = json.Unmarshal([]byte(strings.Split(out.String(), "\n")[0]), &row)
	for _, k := range want {
		if k != "session_id" && k != "children" && row[k] != tot[k] { // list lines keep no per-child breakdown
			t.Fatalf("list --json %s = %v, totals say %v", k, row[k], tot[k])
		}
	}
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, _ := db.ListRuns(context.Background(), sid)
	if len(runs) != 2 || runs[0].Mode != store.ModePlan || runs[1].Mode != store.ModeExecute {
		t.Fatalf("run modes %+v", runs)
	}
	if r := e.run(context.Background(), "", "--mode", "yolo", "x"); r.code != 2 {
		t.Fatalf("bad --mode exit %d", r.code)
	}
}
