package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestArchiveHidesFromTheListAndProjectsGroup(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	a, b, c := mustSession(t, db, "a"), mustSession(t, db, "b"), mustSession(t, db, "c")
	if err := db.SetArchived(ctx, []string{a.ID, b.ID}, true); err != nil {
		t.Fatal(err)
	}
	ids := func(f store.ListFilter) string {
		t.Helper()
		ss, err := db.ListSessionsBy(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ss {
			out = append(out, s.Title)
		}
		return strings.Join(out, ",")
	}
	if got := ids(store.ListFilter{}); got != "c" {
		t.Fatalf("the list shows %q, want c only (a and b archived)", got)
	}
	if got := ids(store.ListFilter{Archived: true}); got != "b,a" {
		t.Fatalf("archived = %q", got)
	}
	// Archived sessions still open and search.
	if s, err := db.GetSession(ctx, a.ID); err != nil || !s.Archived {
		t.Fatalf("GetSession(archived) = %+v, %v", s, err)
	}
	if err := db.SetArchived(ctx, []string{b.ID}, false); err != nil {
		t.Fatal(err)
	}
	if got := ids(store.ListFilter{}); got != "c,b" {
		t.Fatalf("after unarchive: %q", got)
	}

	if err := db.SetProject(ctx, []string{b.ID, c.ID}, "  Web site "); err != nil {
		t.Fatal(err)
	}
	if got := ids(store.ListFilter{Project: "Web site"}); got != "c,b" {
		t.Fatalf("project = %q", got)
	}
	if got := ids(store.ListFilter{Project: "Web site", All: true}); got != "c,b" {
		t.Fatalf("project, all = %q", got)
	}
	if ps, err := db.Projects(ctx); err != nil || strings.Join(ps, ",") != "Web site" {
		t.Fatalf("projects = %q, %v", ps, err)
	}
	// A fork joins its parent's project; it is not archived even when its parent is.
	f, err := db.Fork(ctx, a.ID, 0)
	if err == nil {
		t.Fatalf("fork at 0 of an empty session: %+v", f)
	}
	mustAppend(t, db, c.ID, "", user("hi"))
	f, err = db.Fork(ctx, c.ID, 1)
	if err != nil || f.Project != "Web site" || f.Archived {
		t.Fatalf("fork = %+v, %v", f, err)
	}

	// All or none: an unknown id changes nothing.
	if err := db.SetProject(ctx, []string{a.ID, "nope"}, "X"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if s, _ := db.GetSession(ctx, a.ID); s.Project != "" {
		t.Fatalf("a half-done set: %+v", s)
	}
	if err := db.SetProject(ctx, []string{a.ID}, strings.Repeat("x", 81)); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a long name: %v", err)
	}
	if err := db.SetProject(ctx, []string{a.ID}, "two\nlines"); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a name with a newline: %v", err)
	}
	if err := db.SetArchived(ctx, nil, true); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("no ids: %v", err)
	}
}

// dbstat sums what SQLite itself says each table's records take. go-sqlite3 is built without
// the dbstat table (it needs the sqlite_dbstat tag); Debian's sqlite3 shell has it.
func dbstat(t *testing.T, path string) map[string]int64 {
	t.Helper()
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 shell is needed to read dbstat (scripts/bootstrap.sh test installs it)")
	}
	out, err := exec.Command(bin, "-readonly", path, `SELECT name, sum(payload) FROM dbstat WHERE name IN ('chunks', 'blobs', 'cp_chunks') GROUP BY name`).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 dbstat: %v\n%s", err, out)
	}
	m := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, n, _ := strings.Cut(line, "|")
		m[name], _ = strconv.ParseInt(n, 10, 64)
	}
	return m
}

func TestSessionSizesEqualWhatDbstatSays(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	a, b := mustSession(t, db, "a"), mustSession(t, db, "b")
	conversation(t, db, a.ID)
	// Rows of every size class: small, a payload over a page (overflow pages), one of 70,000
	// bytes (a 3-byte serial type), unicode (bytes, not characters).
	mustAppend(t, db, b.ID, "run-x", user(strings.Repeat("é", 3000)))
	mustAppend(t, db, b.ID, "run-x", assistant("", call("c9", "read_file", `{}`)), result("c9", "read_file", strings.Repeat("line of output\n", 5000)))
	png := []byte("\x89PNG\r\n\x1a\n" + strings.Repeat("p", 9000))
	h, err := db.PutBlob(ctx, store.Blob{MIME: "image/png", Width: 300, Height: 2, Data: png})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.ImageRef{Hash: h, MIME: "image/png", Width: 300, Height: 2, Name: "a.png"}
	mustAppend(t, db, b.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "see", Images: []store.ImageRef{ref, ref}}})
	// Checkpoint chunks of one change of b's (what the recorder writes, by hand: the store
	// does not make them).
	chunk := func(data string) string {
		sum := sha256.Sum256([]byte(data))
		k := hex.EncodeToString(sum[:])
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO cp_chunks(sha256, data) VALUES (?, ?)`, k, []byte(data)); err != nil {
			t.Fatal(err)
		}
		return k
	}
	k1, k2 := chunk(strings.Repeat("x", 5000)), chunk("tail")
	for i, k := range []string{k1, k2} {
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO cp_blob_chunks(blob, ord, chunk) VALUES ('blob1', ?, ?)`, i, k); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO cp_blobs(sha256, size) VALUES ('blob1', 5004);
		INSERT INTO cp_captures(id, session_id, call_id, root, seq, created_at) VALUES (7, ?, 'c9', '/w', 3, 1);
		INSERT INTO cp_changes VALUES (7, 'f.txt', 'created', '', 0, 0, '', '', 0, 'file', 420, 5004, 'blob1', '', 1)`, b.ID); err != nil {
		t.Fatal(err)
	}

	sizes, err := db.SessionSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := dbstat(t, path)
	if got := sizes[a.ID].Rows + sizes[b.ID].Rows; got != want["chunks"] {
		t.Errorf("rows: sizes say %d (a %d + b %d), dbstat says %d", got, sizes[a.ID].Rows, sizes[b.ID].Rows, want["chunks"])
	}
	if sizes[b.ID].Images != want["blobs"] || sizes[a.ID].Images != 0 {
		t.Errorf("images: b %d (a %d), dbstat says %d", sizes[b.ID].Images, sizes[a.ID].Images, want["blobs"])
	}
	if sizes[b.ID].Checkpoints != want["cp_chunks"] || want["cp_chunks"] == 0 {
		t.Errorf("checkpoint chunks: b %d, dbstat says %d", sizes[b.ID].Checkpoints, want["cp_chunks"])
	}
	one, err := db.SessionSize(ctx, b.ID)
	if err != nil || one != sizes[b.ID] || one.Total != one.Rows+one.Images+one.Checkpoints {
		t.Fatalf("SessionSize(b) = %+v, %v; SessionSizes says %+v", one, err, sizes[b.ID])
	}

	// Deleting b gives its rows, its image and its checkpoint chunks back: what is left is a's.
	rm, err := db.RemoveSession(ctx, b.ID)
	if err != nil || rm.Rows != 4 || rm.Images != 1 || rm.Size != one {
		t.Fatalf("RemoveSession = %+v, %v", rm, err)
	}
	left := dbstat(t, path)
	if left["chunks"] != sizes[a.ID].Rows || left["blobs"] != 0 || left["cp_chunks"] != 0 {
		t.Fatalf("after delete dbstat says %v; a's rows are %d", left, sizes[a.ID].Rows)
	}
	if _, err := db.SessionSize(ctx, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("size of a deleted session: %v", err)
	}
}

func TestDeleteGivesTheSpaceBack(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	keep, big := mustSession(t, db, "keep"), mustSession(t, db, "big")
	mustAppend(t, db, keep.ID, "", user("small"))
	for i := range 40 {
		id := "c" + strconv.Itoa(i)
		mustAppend(t, db, big.ID, "", assistant("", call(id, "read_file", `{}`)), result(id, "read_file", strings.Repeat(strconv.Itoa(i)+" output line\n", 20000)))
	}
	fileSize := func() int64 {
		t.Helper()
		fs, err := db.FileSize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fs.Bytes
	}
	if _, err := db.SQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	before := fileSize()
	if _, err := db.RemoveSession(ctx, big.ID); err != nil {
		t.Fatal(err)
	}
	fs, _ := db.FileSize(ctx)
	if fs.Free < 8<<20 {
		t.Fatalf("after the delete %d bytes are free pages, want the session's ~10 MB", fs.Free)
	}
	gone, err := db.Reclaim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := fileSize()
	// All of it: the rows' pages, and the search index's entries and tombstones of them.
	if gone < 8<<20 || after > 1<<20 {
		t.Fatalf("reclaim gave back %d bytes; the files went from %d to %d bytes", gone, before, after)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() > before-8<<20 {
		t.Fatalf("the database file is %d bytes, was %d with the log folded", fi.Size(), before)
	}
	if rows := messagesOf(t, db, keep.ID); len(rows) != 1 {
		t.Fatalf("the other session's rows: %s", rows)
	}
}

func TestAnOlderFileIsTurnedToIncrementalVacuumOnce(t *testing.T) {
	ctx := context.Background()
	db, path := openTemp(t)
	s := mustSession(t, db, "old")
	mustAppend(t, db, s.ID, "", user("kept"))
	db.Close()
	// As a file made before incremental vacuum: auto_vacuum NONE.
	out, err := exec.Command("sqlite3", path, "PRAGMA auto_vacuum = NONE; VACUUM; PRAGMA auto_vacuum;").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Fatalf("make an old file: %v %s", err, out)
	}
	db = openPath(t, path)
	var mode int
	if err := db.SQL().QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("auto_vacuum after open = %d, %v; want 2 (incremental)", mode, err)
	}
	if rows := messagesOf(t, db, s.ID); len(rows) != 1 {
		t.Fatalf("rows after the conversion: %s", rows)
	}
}

func TestCompactIsRefusedWhileARunGoes(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	run, err := db.StartRun(ctx, store.NewRun{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Compact(ctx); !errors.Is(err, store.ErrRunGoing) || !strings.Contains(err.Error(), s.ID) {
		t.Fatalf("compact during a run: %v", err)
	}
	if _, _, err := db.FinishRun(ctx, run.ID, store.RunResult{Status: "completed"}); err != nil {
		t.Fatal(err)
	}
	before, after, err := db.Compact(ctx)
	if err != nil || before.Bytes == 0 || after.Bytes == 0 {
		t.Fatalf("compact = %+v, %+v, %v", before, after, err)
	}
}
