package checkpoint_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	if os.Getenv(childEnv) == "shell" {
		childShell(os.Getenv(childDB), os.Getenv(childDir))
		return
	}
	os.Exit(m.Run())
}

// TestSIGKILLMidCommand: the app is killed with SIGKILL while a shell
// command it runs is half-way through changing files. After a restart,
// repair answers the call with an "interrupted" row, the changes made so
// far are linked to that row, and a restore brings the folder back.
func TestSIGKILLMidCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess kill test")
	}
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "kill.db")
	dir := t.TempDir()
	writeTree(t, dir, start)
	before := snapshot(t, dir)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=shell", childDB+"="+dbPath, childDir+"="+dir)
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
	if err != nil || summary(ch) != "modified a.txt\ndeleted b.bin\n" || ch[0].Seq != last.Seq {
		t.Fatalf("changes after the kill (interrupted row %d): %v\n%s", last.Seq, err, summary(ch))
	}
	if _, err := rec.Restore(ctx, list[0].ID, checkpoint.RestoreOptions{ToSeq: last.Seq}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, dir))
}

// childShell is the app in the kill test: a run whose shell command
// changes two files, reports half-way, and sleeps until killed.
func childShell(dbPath, dir string) {
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
