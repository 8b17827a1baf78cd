package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The journal under real faults (docs/reliability.md): `loopdesk run` (this test binary as
// loopdesk, LOOPDESK_CLI_MAIN) with an I/O error injected at every write and sync of its
// database, and with its database on a disk that fills at a random point. After each fault:
// the run exits 6 naming the file (or completes, when the fault fell after its last row),
// every row it reported stored (rows_stored) is in the file unchanged, no tool ran whose
// call row was not stored, and the session continues.
//
// LOOPDESK_SOAK=1 runs the long versions (make soak): every write of the scripted run, and
// 50 full disks.

func soak() bool { return os.Getenv("LOOPDESK_SOAK") == "1" }

// eioShim is an LD_PRELOAD library that fails the Nth write, pwrite or sync on a file whose
// name ends in ".db" or ".db-wal" with EIO ($LOOPDESK_EIO_AT; 0 fails none), and appends one
// byte per such call to $LOOPDESK_EIO_COUNT (so a run's writes can be counted);
// $LOOPDESK_EIO_SAY=1 names the failed call on stderr.
const eioShim = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static long at = 0, n = 0;
static int counter = -1, reads = 0;

__attribute__((constructor)) static void init(void) {
	const char *a = getenv("LOOPDESK_EIO_AT"), *c = getenv("LOOPDESK_EIO_COUNT"), *r = getenv("LOOPDESK_EIO_READS");
	if (a) at = atol(a);
	reads = r && r[0] == '1';
	if (c) counter = open(c, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

static int ends(const char *s, size_t l, const char *suf) {
	size_t k = strlen(suf);
	return l >= k && memcmp(s + l - k, suf, k) == 0;
}

/* fault says whether this call on fd is the one to fail, counting the calls on the database:
   its writes and syncs, or with LOOPDESK_EIO_READS=1 its reads. */
static int fault(int fd, int read) {
	if (read != reads) return 0;
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t l = readlink(link, path, sizeof path - 1);
	if (l <= 0 || !(ends(path, l, ".db") || ends(path, l, ".db-wal"))) return 0;
	long me = __atomic_add_fetch(&n, 1, __ATOMIC_SEQ_CST);
	if (counter >= 0) {
		static ssize_t (*real)(int, const void *, size_t);
		if (!real) real = dlsym(RTLD_NEXT, "write");
		real(counter, "w", 1);
	}
	return me == at;
}

#define WRAP(ret, name, params, args, read) \
	ret name params { \
		static ret (*real) params; \
		if (!real) real = dlsym(RTLD_NEXT, #name); \
		if (fault(fd, read)) { if (getenv("LOOPDESK_EIO_SAY")) dprintf(2, "eio: %s fd %d\n", #name, fd); errno = EIO; return -1; } \
		return real args; \
	}

WRAP(ssize_t, write, (int fd, const void *b, size_t c), (fd, b, c), 0)
WRAP(ssize_t, pwrite, (int fd, const void *b, size_t c, off_t o), (fd, b, c, o), 0)
WRAP(ssize_t, pwrite64, (int fd, const void *b, size_t c, off_t o), (fd, b, c, o), 0)
WRAP(int, fsync, (int fd), (fd), 0)
WRAP(int, fdatasync, (int fd), (fd), 0)
WRAP(ssize_t, read, (int fd, void *b, size_t c), (fd, b, c), 1)
WRAP(ssize_t, pread, (int fd, void *b, size_t c, off_t o), (fd, b, c, o), 1)
WRAP(ssize_t, pread64, (int fd, void *b, size_t c, off_t o), (fd, b, c, o), 1)
`

// buildShim compiles eioShim with the system's C compiler.
func buildShim(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (build-essential)")
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "eio.c"), filepath.Join(dir, "eio.so")
	if err := os.WriteFile(src, []byte(eioShim), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", lib, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return lib
}

// faultRun is one scripted `loopdesk run` as a process of its own: a call to write_file,
// then an answer.
type faultRun struct {
	t    *testing.T
	db   string
	ws   string
	srv  *fakeai.Server
	env  []string
	wrap []string // a command the run is started under (unshare ...), else none
}

func newFaultRun(t *testing.T, db, ws string, env ...string) *faultRun {
	t.Helper()
	return newScriptedRun(t, db, ws, []fakeai.Reply{
		fakeai.ToolCalls(fakeai.Call{ID: "call_w", Name: "write_file", Arguments: `{"path":"out.txt","content":"hello"}`}),
		fakeai.Text("Wrote out.txt."),
	}, env...)
}

func newScriptedRun(t *testing.T, db, ws string, replies []fakeai.Reply, env ...string) *faultRun {
	t.Helper()
	srv, err := fakeai.Start(fakeai.WithAPIKey("sk-test-secret"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	srv.Enqueue(replies...)
	return &faultRun{t: t, db: db, ws: ws, srv: srv, env: env}
}

type faultResult struct {
	code           int
	stdout, stderr string
	stored         map[int64]string // rows_stored: seq -> kind + payload
	sessionID      string
}

func (f *faultRun) run(args ...string) faultResult {
	f.t.Helper()
	full := append([]string{"run", "--json", "--db", f.db, "--workspace", f.ws, "--base-url", f.srv.URL(), "--model", "fake-model",
		"--approve", "auto", "--sandbox", "off"}, args...)
	a, _ := json.Marshal(full)
	self, _ := os.Executable()
	cmd := exec.Command(self)
	if len(f.wrap) > 0 {
		cmd = exec.Command(f.wrap[0], append(f.wrap[1:], self)...)
	}
	cmd.Env = append(append(os.Environ(), "LOOPDESK_CLI_MAIN="+string(a), "OPENAI_API_KEY=sk-test-secret"), f.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		f.t.Fatalf("run: %v", err)
	}
	r := faultResult{code: code, stdout: out.String(), stderr: errb.String(), stored: map[int64]string{}}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type      string        `json:"type"`
			SessionID string        `json:"session_id"`
			Rows      []store.Chunk `json:"rows"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		if r.sessionID == "" {
			r.sessionID = ev.SessionID
		}
		if ev.Type == "rows_stored" {
			for _, c := range ev.Rows {
				r.stored[c.Seq] = string(c.Kind) + " " + string(c.Payload)
			}
		}
	}
	return r
}

// checkAfterFault opens the database as the next process would and checks what the run
// left: every reported row there unchanged, the file sound, and no write_file call that ran
// without its call row. It returns the rows checked.
func checkAfterFault(t *testing.T, label, db, ws string, r faultResult) int {
	t.Helper()
	ctx := context.Background()
	d, err := store.Open(ctx, db)
	if err != nil {
		t.Fatalf("%s: the next open fails: %v\nstderr: %s", label, err, r.stderr)
	}
	defer d.Close()
	var check string
	if err := d.SQL().QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("%s: integrity_check %q %v", label, check, err)
	}
	held := map[int64]string{}
	callStored := false
	if r.sessionID != "" {
		rows, err := d.Chunks(ctx, r.sessionID)
		if err != nil && len(r.stored) > 0 {
			t.Fatalf("%s: rows of session %s: %v", label, r.sessionID, err)
		}
		for _, c := range rows {
			held[c.Seq] = string(c.Kind) + " " + string(c.Payload)
			if c.Kind == store.KindAssistant && strings.Contains(string(c.Payload), "call_w") {
				callStored = true
			}
		}
	}
	for seq, row := range r.stored {
		if held[seq] != row {
			t.Errorf("%s: row %d was reported stored as %s; the file holds %q", label, seq, row, held[seq])
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
		if !callStored {
			t.Errorf("%s: write_file ran but its call row is not stored", label)
		}
		// A call runs only once its "before" record is stored (its changes can be undone).
		var captures int
		if err := d.SQL().QueryRowContext(ctx, `SELECT count(*) FROM cp_captures WHERE call_id = 'call_w'`).Scan(&captures); err != nil || captures == 0 {
			t.Errorf("%s: write_file ran without its checkpoint before it (%d, %v)", label, captures, err)
		}
	}
	return len(r.stored)
}

// checkExit: a fault ends the run with exit 6 and a message naming the file, or (a fault
// after the run's last row, when the file is closed) the run completes.
func checkExit(t *testing.T, label, db string, r faultResult) bool {
	t.Helper()
	switch r.code {
	case 0:
		return false
	case runExitStorage:
		if !strings.Contains(r.stderr, db) {
			t.Errorf("%s: exit 6, but stderr does not name %s: %s", label, db, r.stderr)
		}
		return true
	}
	t.Errorf("%s: exit %d, want 6 (or 0)\nstdout: %s\nstderr: %s", label, r.code, r.stdout, r.stderr)
	return false
}

// templateDB is a migrated, empty database to copy for each fault run, so the faults fall on
// the run's own writes rather than on the schema's.
func templateDB(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "template.db")
	d, err := store.Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// freshRun lays out a database (from tmpl) and a folder under dir for one fault run.
func freshRun(t *testing.T, dir string, tmpl []byte) (db, ws string) {
	t.Helper()
	db, ws = filepath.Join(dir, "loopdesk.db"), filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, tmpl, 0o600); err != nil {
		t.Fatal(err)
	}
	return db, ws
}

func faultEnv(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("LOOPDESK_MODEL", "")
	t.Setenv("LOOPDESK_DB", "")
}

// TestRunEIOAtEveryWrite fails the Nth write or sync of the database with EIO, for N over the
// writes of a scripted run (every one with LOOPDESK_SOAK=1, a spread of them otherwise).
func TestRunEIOAtEveryWrite(t *testing.T) { eioRuns(t, "writes and syncs", "0") }

// TestRunEIOAtEveryRead is the same for the database's reads.
func TestRunEIOAtEveryRead(t *testing.T) { eioRuns(t, "reads", "1") }

func eioRuns(t *testing.T, what, reads string) {
	if testing.Short() {
		t.Skip("fault runs")
	}
	faultEnv(t)
	shim := buildShim(t)
	tmpl := templateDB(t)

	// Count the run's calls on its database, with none failing.
	countFile := filepath.Join(t.TempDir(), "count")
	db, ws := freshRun(t, t.TempDir(), tmpl)
	r := newFaultRun(t, db, ws, "LD_PRELOAD="+shim, "LOOPDESK_EIO_READS="+reads, "LOOPDESK_EIO_COUNT="+countFile).run("write out.txt")
	if r.code != 0 {
		t.Fatalf("the run without a fault: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	fi, err := os.Stat(countFile)
	if err != nil || fi.Size() < 5 {
		t.Fatalf("the shim counted %v writes (%v): is it loaded?", fi, err)
	}
	total := int(fi.Size())

	ns := spread(total, 6)
	if soak() {
		ns = spread(total, total)
	}
	failed, rows, asDamage := 0, 0, 0
	for _, n := range ns {
		label := fmt.Sprintf("EIO at %s %d of %d", what, n, total)
		db, ws := freshRun(t, t.TempDir(), tmpl)
		f := newFaultRun(t, db, ws, "LD_PRELOAD="+shim, "LOOPDESK_EIO_READS="+reads, fmt.Sprintf("LOOPDESK_EIO_AT=%d", n))
		r := f.run("write out.txt")
		if reads == "1" && r.code == 1 && (strings.Contains(r.stderr, "damaged") || strings.Contains(r.stderr+r.stdout, "malformed")) {
			// SQLite takes many failed reads for a malformed page, without the system's
			// errno (docs/reliability.md): the run ends, or the open refuses, as for damage.
			// What must hold holds all the same: below, nothing stored is lost.
			asDamage++
		} else if checkExit(t, label, db, r) {
			failed++
		}
		rows += checkAfterFault(t, label, db, ws, r)
		continueAfterFault(t, label, db, ws, r)
	}
	t.Logf("faults injected %d (of %d %s), runs stopped with exit 6: %d, taken for damage (exit 1): %d, rows reported stored and checked: %d, lost: 0",
		len(ns), total, what, failed, asDamage, rows)
	if failed == 0 && reads == "0" {
		t.Error("no fault stopped a run")
	}
}

// spread picks k of 1..total, evenly, always the first and the last.
func spread(total, k int) []int {
	if k >= total {
		k = total
	}
	var out []int
	for i := 0; i < k; i++ {
		n := 1 + i*(total-1)/max(k-1, 1)
		if len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	}
	return out
}

// continueAfterFault continues the run's session without a fault: it completes.
func continueAfterFault(t *testing.T, label, db, ws string, r faultResult) {
	t.Helper()
	args := []string{"and again"}
	if r.sessionID != "" {
		if _, err := os.Stat(db); err == nil {
			args = append([]string{"--session", r.sessionID}, args...)
		}
	}
	next := newScriptedRun(t, db, ws, []fakeai.Reply{fakeai.Text("Again.")}).run(args...)
	if next.code != 0 {
		t.Errorf("%s: the session does not continue: exit %d\n%s", label, next.code, next.stderr)
	}
}

// TestRunFullDisk puts the database on a small tmpfs (mounted in a user and mount namespace
// of its own: unshare -rm re-runs this test there), fills the disk so that a random amount
// is left, and runs the scripted run: it stops with exit 6 and "the disk holding DB is
// full" (or completes, when the room left was enough), keeps every row it reported stored,
// ran no call whose row was not stored, and once the filler is removed the session opens
// clean and continues. 5 disks in make test, 50 with LOOPDESK_SOAK=1.
func TestRunFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("fault runs")
	}
	if os.Getenv("LOOPDESK_FULLDISK_NS") != "1" {
		self, _ := os.Executable()
		cmd := exec.Command("unshare", "-rm", self, "-test.run", "^TestRunFullDisk$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "LOOPDESK_FULLDISK_NS=1")
		out, err := cmd.CombinedOutput()
		if err != nil && bytes.Contains(out, []byte("unshare failed")) || errors.Is(err, exec.ErrNotFound) {
			t.Skipf("no user and mount namespace here: %v %s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "full disks") {
				t.Log(strings.TrimSpace(l))
			}
		}
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestRunFullDisk")) {
			t.Fatalf("in the namespace: %v\n%s", err, out)
		}
		return
	}
	fullDiskRuns(t)
}

func fullDiskRuns(t *testing.T) {
	faultEnv(t)
	tmpl := templateDB(t)
	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=4m"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) })
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 37))
	iterations := 5
	if soak() {
		iterations = 50
	}
	stopped, rows := 0, 0
	for i := range iterations {
		clearDir(t, disk)
		db, _ := freshRun(t, disk, tmpl)
		ws := filepath.Join(t.TempDir(), "ws")
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		left := rng.IntN(320 << 10)
		if i == 0 {
			left = rng.IntN(64 << 10) // one disk surely fills, whatever the draw
		}
		filler := fill(t, disk, left)
		label := fmt.Sprintf("disk %d (seed %d, %d KiB left)", i, seed, left>>10)
		r := newFaultRun(t, db, ws).run("write out.txt")
		if checkExit(t, label, db, r) {
			stopped++
			// In the run: "the disk holding DB is full: nothing after row N was stored"; at
			// open, before the run: "... DB: the disk holding the database is full".
			if !strings.Contains(r.stderr, "the disk holding ") || !strings.Contains(r.stderr, " is full") {
				t.Errorf("%s: stderr does not say the disk is full: %s", label, r.stderr)
			}
			if strings.Contains(r.stdout, `"type":"run_finished"`) && !strings.Contains(r.stderr, "the disk holding "+db+" is full: nothing after row ") {
				t.Errorf("%s: the run's end does not say which rows were stored: %s", label, r.stderr)
			}
		}
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		rows += checkAfterFault(t, label, db, ws, r)
		continueAfterFault(t, label, db, ws, r)
	}
	t.Logf("full disks %d (seed %d), runs stopped with exit 6: %d, rows reported stored and checked: %d, lost: 0",
		iterations, seed, stopped, rows)
	if stopped == 0 {
		t.Error("no full disk stopped a run")
	}
}

// fill writes a file that leaves about left bytes free on the disk at dir.
func fill(t *testing.T, dir string, left int) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	size := int64(st.Bavail)*int64(st.Bsize) - int64(left)
	p := filepath.Join(dir, "filler")
	if size > 0 {
		if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
			t.Fatalf("fill the disk: %v", err)
		}
	}
	return p
}

func clearDir(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunWaitsOutABusyLockAndNamesItsHolder: another process (the sqlite3 shell) holds the
// database's write lock past the busy timeout: `loopdesk run` gives up after it — never a
// hang — saying which process holds the database, and writes nothing.
func TestRunWaitsOutABusyLockAndNamesItsHolder(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 shell (scripts/bootstrap.sh test installs it)")
	}
	e := runNewEnv(t)
	d, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	shell := exec.Command("sqlite3", e.db)
	in, _ := shell.StdinPipe()
	out, _ := shell.StdoutPipe()
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = shell.Process.Kill(); _ = shell.Wait() })
	fmt.Fprintln(in, "BEGIN EXCLUSIVE; INSERT INTO settings(key, value) VALUES ('held', '1'); SELECT 'ready';")
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("sqlite3 did not take the lock: %q %v", line, err)
	}
	e.srv.Enqueue(fakeai.Text("never asked"))
	start := time.Now()
	r := e.run(context.Background(), "", "hello")
	want := fmt.Sprintf("the database is busy: sqlite3 (pid %d) holds it", shell.Process.Pid)
	if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, e.db) {
		t.Fatalf("exit %d, stderr %q; want it to say %q and name the file", r.code, r.stderr, want)
	}
	if waited := time.Since(start); waited > store.DefaultBusyTimeout+10*time.Second {
		t.Errorf("the run waited %v", waited)
	}
	if n := e.srv.Pending(); n != 1 {
		t.Errorf("the model was asked while the database was held (%d replies left)", n)
	}
}
