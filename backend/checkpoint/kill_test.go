package checkpoint_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

const (
	childEnv = "LOOPDESK_CHECKPOINT_TEST_CHILD"
	childDB  = "LOOPDESK_CHECKPOINT_TEST_DB"
	childDir = "LOOPDESK_CHECKPOINT_TEST_DIR"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "shell":
		childShell(os.Getenv(childDB), os.Getenv(childDir), 0)
		return
	case "continued":
		childShell(os.Getenv(childDB), os.Getenv(childDir), 9)
		return
	}
	os.Exit(m.Run())
}

// TestSIGKILLMidCommand: the app is killed with SIGKILL while a shell
// command it runs is half-way through changing files. After a restart,
// repair answers the call with an "interrupted" row, the changes made so
// far are linked to that row, and a restore brings the folder back.
func TestSIGKILLMidCommand(t *testing.T) { killMidCommand(t, "shell") }

// TestSIGKILLMidCommandInContinuedSession: the same in the tenth run of a session whose
// server numbers its calls from 1 in every run (llama.cpp, Ollama, TGI do): every run's call
// is "c1", and the killed command's changes must land on the tenth run's row, not on an
// earlier run's row of the same call id.
func TestSIGKILLMidCommandInContinuedSession(t *testing.T) { killMidCommand(t, "continued") }

func killMidCommand(t *testing.T, mode string) {
	if testing.Short() {
		t.Skip("subprocess kill test")
	}
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "kill.db")
	dir := t.TempDir()
	writeTree(t, dir, start)
	before := snapshot(t, dir)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childDB+"="+dbPath, childDir+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	// The child prints "half" once the command has changed some files and
	// is still running.
	for sc.Scan() && sc.Text() != "half" {
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the app and its command
	cmd.Wait()

	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Repaired.Results != 1 {
		t.Fatalf("repair answered %d calls, want 1", db.Repaired.Results)
	}
	rec := checkpoint.New(db, checkpoint.Options{})
	defer rec.Close()
	if _, err := rec.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	list, _ := db.ListSessions(ctx)
	rows, _ := db.Chunks(ctx, list[0].ID)
	last := rows[len(rows)-1]
	ch, err := rec.Changes(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var killed, others []checkpoint.Change
	for _, c := range ch {
		if c.Seq == last.Seq {
			killed = append(killed, c)
		} else if c.Change != "created" || !strings.HasPrefix(c.Path, "earlier-") {
			others = append(others, c)
		}
	}
	if summary(killed) != "modified a.txt\ndeleted b.bin\n" || len(others) > 0 {
		t.Fatalf("changes after the kill: on the interrupted row %d:\n%son other rows:\n%s", last.Seq, summary(killed), summary(others))
	}
	if _, err := rec.Restore(ctx, list[0].ID, checkpoint.RestoreOptions{ToSeq: last.Seq}); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, dir)
	for p := range after {
		if filepath.Base(p) != p || !strings.HasPrefix(p, "earlier-") {
			continue
		}
		delete(after, p) // what the earlier runs made stays: the restore went back to before the tenth
	}
	sameTree(t, before, after)
}

// childShell is the app in the kill test: after `earlier` completed runs whose call "c1"
// each created a file, a run whose shell command (call "c1" again) changes two files,
// reports half-way, and sleeps until killed.
func childShell(dbPath, dir string, earlier int) {
	ctx := context.Background()
	time.AfterFunc(20*time.Second, func() { os.Exit(3) })
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		fail(err)
	}
	rec := checkpoint.New(db, checkpoint.Options{})
	s, err := db.CreateSession(ctx, store.NewSession{Title: "kill", Workspace: dir})
	if err != nil {
		fail(err)
	}
	for i := range earlier {
		if err := earlierRun(ctx, db, rec, s.ID, dir, i); err != nil {
			fail(err)
		}
	}
	run, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID, Model: "m"})
	if err != nil {
		fail(err)
	}
	if _, err := db.Append(ctx, s.ID, run.ID, store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: "c1", Name: "run_shell_command", Arguments: "{}"}}}}); err != nil {
		fail(err)
	}
	if _, err := rec.Before(ctx, s.ID, run.ID, "c1", dir); err != nil {
		fail(err)
	}
	cmd := exec.Command("bash", "-c", `sed -i s/alpha/ALPHA/ a.txt && rm b.bin && echo half && sleep 30 && echo late > late.txt`)
	cmd.Dir, cmd.Stdout = dir, os.Stdout
	if err := cmd.Run(); err != nil {
		fail(err)
	}
}

// earlierRun is one completed run of the continued session: its call "c1" creates a file.
func earlierRun(ctx context.Context, db *store.DB, rec *checkpoint.Recorder, sessionID, dir string, i int) error {
	run, err := db.StartRun(ctx, store.NewRun{SessionID: sessionID, Model: "m"})
	if err != nil {
		return err
	}
	if _, err := db.Append(ctx, sessionID, run.ID, store.NewChunk{Kind: store.KindAssistant, Payload: store.AssistantPayload{
		ToolCalls: []store.ToolCall{{ID: "c1", Name: "run_shell_command", Arguments: "{}"}}}}); err != nil {
		return err
	}
	capt, err := rec.Before(ctx, sessionID, run.ID, "c1", dir)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("earlier-%d.txt", i)), []byte("x\n"), 0o644); err != nil {
		return err
	}
	rows, err := db.Append(ctx, sessionID, run.ID, store.NewChunk{Kind: store.KindToolResult,
		Payload: store.ToolResultPayload{CallID: "c1", Name: "run_shell_command", Content: "ok"}})
	if err != nil {
		return err
	}
	if _, err := capt.After(ctx, rows[0].Seq); err != nil {
		return err
	}
	_, _, err = db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"})
	return err
}
