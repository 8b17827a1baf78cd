package desktop_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// TestAFullDiskRefusesSendingAndKeepsTheWindowUsable runs with the database on a 64 MB tmpfs
// of its own (a user and mount namespace: unshare -rm re-runs the test there). Under 100 MB
// the window is warned before a run and sending works; once the disk is full, sending is
// refused with why (the file, the space left, what to do) and nothing is written, while
// listing, searching and exporting go on; with space freed, sending works again.
func TestAFullDiskRefusesSendingAndKeepsTheWindowUsable(t *testing.T) {
	if os.Getenv("LOOPDESK_ROOM_NS") != "1" {
		self, _ := os.Executable()
		cmd := exec.Command("unshare", "-rm", self, "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "LOOPDESK_ROOM_NS=1")
		out, err := cmd.CombinedOutput()
		if errors.Is(err, exec.ErrNotFound) || bytes.Contains(out, []byte("unshare failed")) {
			t.Skipf("no user and mount namespace here: %v %s", err, out)
		}
		if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
			t.Fatalf("in the namespace: %v\n%s", err, out)
		}
		return
	}
	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=64m"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) })
	srv := startFake(t)
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("LOOPDESK_MODEL", "")
	dbPath := filepath.Join(disk, "loopdesk.db")
	app := openTestApp(t, dbPath, filepath.Join(t.TempDir(), "config"))
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: srv.URL(), Model: "fake-model", APIKey: "sk-test-secret"}); err != nil {
		t.Fatal(err)
	}
	s, err := app.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	room, err := app.DiskRoom()
	if err != nil || !room.Low || room.Full || !strings.Contains(room.Message, dbPath) || !strings.Contains(room.Message, "MB free") {
		t.Fatalf("room on a 64 MB disk = %+v, %v; want a warning naming the file", room, err)
	}
	srv.Enqueue(fakeai.Text("noted: remember the milk"))
	runID, err := app.SendMessage(s.ID, "remember the milk")
	if err != nil {
		t.Fatalf("sending with 64 MB left: %v", err)
	}
	app.rec.runFinished(t, runID)

	filler := filepath.Join(disk, "filler")
	var st syscall.Statfs_t
	if err := syscall.Statfs(disk, &st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := app.db.Chunks(t.Context(), s.ID)
	room, _ = app.DiskRoom()
	if !room.Full || !strings.Contains(room.Message, "is full") || !strings.Contains(room.Message, "read, searched and exported") {
		t.Fatalf("room on a full disk = %+v", room)
	}
	_, err = app.SendMessage(s.ID, "and the bread")
	if err == nil || !errors.Is(err, store.ErrDiskFull) || !strings.Contains(err.Error(), "the disk holding "+dbPath+" is full") ||
		!strings.Contains(err.Error(), "free some space, then send again") {
		t.Fatalf("sending on a full disk: %v; want the refusal with why", err)
	}
	if after, _ := app.db.Chunks(t.Context(), s.ID); len(after) != len(before) {
		t.Errorf("a refused send wrote %d rows", len(after)-len(before))
	}
	if list, err := app.ListSessions(); err != nil || len(list) != 1 {
		t.Errorf("listing on a full disk: %d sessions, %v", len(list), err)
	}
	if hits, err := app.SearchText("milk"); err != nil || len(hits) == 0 {
		t.Errorf("searching on a full disk: %v hits, %v", hits, err)
	}
	app.dialogs.save = filepath.Join(t.TempDir(), "export.jsonl")
	if path, err := app.ExportSession(s.ID); err != nil || path == "" {
		t.Errorf("exporting on a full disk: %q %v", path, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakeai.Text("noted: bread too"))
	if _, err := app.SendMessage(s.ID, "and the bread"); err != nil {
		t.Fatalf("sending once space is freed: %v", err)
	}
}
