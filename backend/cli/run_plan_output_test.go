package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// offeredTools are the tool names a request offered the model.
func offeredTools(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// Plan mode offers the model only what it lets run; a call it makes anyway is refused, and the
// human output says so once.
func TestRunPlanModeOffersOnlyWhatItAllows(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "w", Name: "write_file", Arguments: `{"path":"x.txt","content":"x"}`}),
		fakeai.Text("Plan: 1. write x.txt"),
	)
	r := e.run(context.Background(), "", "--approve", "auto", "--mode", "plan", "make x.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	offered := offeredTools(t, e.srv.Requests()[0].Body)
	for _, name := range []string{"write_file", "edit_file", "run_shell_command"} {
		if slices.Contains(offered, name) {
			t.Errorf("plan mode offers %s: %v", name, offered)
		}
	}
	for _, name := range []string{"read_file", "list_dir", "update_plan"} {
		if !slices.Contains(offered, name) {
			t.Errorf("plan mode does not offer %s: %v", name, offered)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan mode wrote the file: %v", err)
	}
	if n := strings.Count(r.stdout, "plan mode"); n != 1 {
		t.Errorf("the denial is printed %d times, want once:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "✗ denied by mode:plan") {
		t.Errorf("no denial line:\n%s", r.stdout)
	}

	// Execute mode offers them again.
	e.srv.Enqueue(fakeai.Text("ok"))
	if r := e.run(context.Background(), "", "--approve", "auto", "go"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if offered := offeredTools(t, reqs[len(reqs)-1].Body); !slices.Contains(offered, "write_file") {
		t.Errorf("execute mode does not offer write_file: %v", offered)
	}
}

// The human output ends with the files the run changed.
func TestRunHumanOutputListsChangedFiles(t *testing.T) {
	e := runNewEnv(t)
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(
		fakeai.ToolCalls(fakeai.Call{ID: "a", Name: "write_file", Arguments: `{"path":"sub/new.txt","content":"new\n"}`},
			fakeai.Call{ID: "b", Name: "edit_file", Arguments: `{"path":"notes.txt","old_string":"old","new_string":"new"}`}),
		fakeai.Text("Done."),
	)
	r := e.run(context.Background(), "", "--approve", "auto", "write and edit")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	_, tail, ok := strings.Cut(r.stderr, "■ completed")
	if !ok {
		t.Fatalf("no summary line: %q", r.stderr)
	}
	for _, want := range []string{"files changed (2):", "created  sub/new.txt", "modified notes.txt"} {
		if !strings.Contains(tail, want) {
			t.Errorf("the end of the run does not list %q:\n%s", want, r.stderr)
		}
	}
}
