package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/extend"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// runLogged runs one prompt answered by "Done." through a runner whose store logs its commits,
// with a hooks engine reading the personal hooks.json in config.
func runLogged(t *testing.T, h *harness, config string) (*commitLog, string) {
	t.Helper()
	log := &commitLog{DB: h.db}
	engine := &hooks.Engine{PersonalDir: config, Rows: h.db}
	r := loop.New(loop.Config{Store: log, Model: modelOf(h), Approver: h.approver, Tools: toolsOf(t), Workspaces: wsOf(),
		Hooks: extend.FireHooks(engine, nil), Admission: extend.PromptHooks(engine, h.db, nil), Extensions: []loop.Extension{extend.Hooks(engine, nil)}})
	defer r.Close()
	h.srv.Enqueue(fakeai.Text("Done."))
	sid := h.session()
	id, err := r.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "look", Model: "fake-model", Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := r.Wait(context.Background(), id); err != nil || res.Status != core.StopCompleted || res.Output != "Done." {
		t.Fatalf("result %+v %v", res, err)
	}
	return log, sid
}

// With hooks configured but none for Stop, the answer is stored with the run's end: the
// engine says beforehand that no Stop hook will read it.
func TestAnswerSharesTheFinishCommitWithoutAStopHook(t *testing.T) {
	h := newHarness(t)
	hh := &hookHarness{harness: h, config: t.TempDir()}
	hh.setHooks("PreToolUse", "", "true")
	log, sid := runLogged(t, h, hh.config)
	if want := []string{"run+user", "assistant+finish"}; !slices.Equal(log.commits, want) {
		t.Errorf("commits %q, want %q", log.commits, want)
	}
	if rows := h.rows(sid); len(rows) != 2 || rows[1].Kind != store.KindAssistant {
		t.Fatalf("rows %+v", rows)
	}
}

// A Stop hook judges the answer from the transcript, so with one configured the answer is
// durable before the hook runs: the transcript the hook read holds it.
func TestStopHookReadsTheAnswerInItsTranscript(t *testing.T) {
	h := newHarness(t)
	hh := &hookHarness{harness: h, config: t.TempDir()}
	seen := filepath.Join(hh.config, "seen.jsonl")
	hh.setHooks("Stop", "", hh.script("copy.sh", "#!/bin/bash\npath=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"transcript_path\"])')\ncp \"$path\" "+seen+"\n"))
	log, _ := runLogged(t, h, hh.config)
	if want := []string{"run+user", "assistant", "hook", "finish"}; !slices.Equal(log.commits, want) {
		t.Errorf("commits %q, want %q", log.commits, want)
	}
	b, err := os.ReadFile(seen)
	if err != nil || !strings.Contains(string(b), "Done.") {
		t.Fatalf("the Stop hook's transcript %q (%v) does not hold the answer", b, err)
	}
}

// Start still refuses a session another live process runs, though the run's row is written
// later with the prompt: CheckIdle answers before Start returns, and nothing is stored.
func TestStartRefusesASessionBusyElsewhere(t *testing.T) {
	h := newHarness(t)
	sid := h.session()
	if _, err := h.db.StartRun(context.Background(), store.NewRun{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	_, err := h.runner.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "x", Model: "fake-model", Mode: "auto"})
	if !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("start on a busy session: %v", err)
	}
	if runs, _ := h.db.ListRuns(context.Background(), sid); len(runs) != 1 {
		t.Fatalf("runs %+v", runs)
	}
	if rows := h.rows(sid); len(rows) != 0 {
		t.Fatalf("rows %+v", rows)
	}
}
