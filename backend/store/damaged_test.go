package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/store/storetest"
)

// journalFile writes a journal of sessions through the store (tool calls, results, answers)
// and closes it, so its WAL is checkpointed into the file. It returns the session ids.
func journalFile(t *testing.T, path string, sessions, turns int) []string {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for s := 0; s < sessions; s++ {
		sess, err := db.CreateSession(context.Background(), store.NewSession{Title: fmt.Sprintf("session %d", s), Workspace: "/w", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID)
		for i := 0; i < turns; i++ {
			id := fmt.Sprintf("c%d", i)
			if _, err := db.Append(context.Background(), sess.ID, "", user(strings.Repeat(fmt.Sprintf("question %d of session %d ", i, s), 8)),
				assistant("", call(id, "read_file", `{"path":"a.txt"}`))); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Append(context.Background(), sess.ID, "", result(id, "read_file", strings.Repeat("content ", 30)),
				assistant(strings.Repeat("answer ", 20))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// damageMiddleLeaf overwrites a leaf page of the chunks table from the middle of the file and
// returns the rows it held, as "session/seq".
func damageMiddleLeaf(t *testing.T, path string) []string {
	t.Helper()
	lost, err := storetest.DamageMiddleLeaf(path)
	if err != nil {
		t.Fatal(err)
	}
	return lost
}

func rowProblems(ps []store.Problem) []string {
	var out []string
	for _, p := range ps {
		if p.SessionID != "" {
			out = append(out, fmt.Sprintf("%s/%d", p.SessionID, p.Seq))
		}
	}
	sort.Strings(out)
	return out
}

func TestCheckHealthyJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	journalFile(t, path, 3, 5)
	ps, err := store.Check(context.Background(), path)
	if err != nil || len(ps) != 0 {
		t.Fatalf("healthy journal: %v %+v", err, ps)
	}
}

func TestOverwrittenPageRefusedAndNamed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	journalFile(t, path, 6, 25)
	lost := damageMiddleLeaf(t, path)
	before := storetest.Hash(path)

	_, err := store.Open(ctx, path)
	var de *store.DamagedError
	if !errors.As(err, &de) || !errors.Is(err, store.ErrDamaged) || !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("open a file with an overwritten page: want a DamagedError, got %v", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "db recover") {
		t.Errorf("the message names neither the file nor what to do: %v", err)
	}
	ps, err := store.Check(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowProblems(ps); strings.Join(got, " ") != strings.Join(lost, " ") {
		t.Errorf("check names rows %v, the page held %v; %+v", got, lost, ps)
	}
	if after := storetest.Hash(path); after != before {
		t.Error("the damaged file's bytes changed")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if fi, _ := os.Stat(path + "-wal"); fi.Size() > 0 {
			t.Error("a WAL was written beside the damaged file")
		}
	}
}

func TestTruncatedFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	journalFile(t, path, 4, 20)
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	before := storetest.Hash(path)
	_, err := store.Open(context.Background(), path)
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("a truncated file: %v", err)
	}
	if storetest.Hash(path) != before {
		t.Error("the truncated file's bytes changed")
	}
	ps, err := store.Check(context.Background(), path)
	if err != nil || len(ps) == 0 {
		t.Fatalf("check of a truncated file: %v %+v", err, ps)
	}
}

func TestForeignWALRefused(t *testing.T) {
	dir := t.TempDir()
	path, other := filepath.Join(dir, "loopdesk.db"), filepath.Join(dir, "other.db")
	journalFile(t, path, 4, 20)
	journalFile(t, other, 5, 20)
	// Another database's WAL: its frames hold pages of that file's b-trees.
	o, err := sql.Open("sqlite3", "file:"+other+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	o.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA wal_autocheckpoint=0`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
		INSERT INTO settings(key, value) SELECT 'k' || i, hex(randomblob(800)) FROM n`} {
		if _, err := o.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	wal, err := os.ReadFile(other + "-wal")
	if err != nil || len(wal) == 0 {
		t.Fatalf("the other file's WAL: %v (%d bytes)", err, len(wal))
	}
	if err := os.WriteFile(path+"-wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	before := storetest.Hash(path)
	_, err = store.Open(context.Background(), path)
	if !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("a foreign WAL: want ErrDamaged, got %v", err)
	}
	if storetest.Hash(path) != before || storetest.Hash(path+"-wal") != storetest.Hash(other+"-wal") {
		t.Error("the file or its WAL changed")
	}
}

func TestSchemaAheadRefusedUnwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	journalFile(t, path, 1, 2)
	o, _ := sql.Open("sqlite3", path)
	if _, err := o.Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, 'from the future', 0)`, store.SchemaVersion()+3); err != nil {
		t.Fatal(err)
	}
	o.Close()
	before := storetest.Hash(path)
	_, err := store.Open(context.Background(), path)
	if !errors.Is(err, store.ErrTooNew) || !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("schema ahead: %v", err)
	}
	if storetest.Hash(path) != before {
		t.Error("the file's bytes changed")
	}
}

// The check at open is skipped only for files unchanged since their last clean check: a page
// overwritten after a clean open and close is still caught.
func TestCheckStampDoesNotHideLaterDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	journalFile(t, path, 5, 25)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(path + "-checked"); err != nil {
		t.Fatalf("no stamp after a clean open: %v", err)
	}
	damageMiddleLeaf(t, path)
	if _, err := store.Open(context.Background(), path); !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("damage after a clean check: %v", err)
	}
}

func TestRecoverSavesEveryReadableSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, out := filepath.Join(dir, "loopdesk.db"), filepath.Join(dir, "recovered.db")
	ids := journalFile(t, path, 6, 25)
	lost := damageMiddleLeaf(t, path)
	before := storetest.Hash(path)

	rep, err := store.Recover(ctx, path, out)
	if err != nil {
		t.Fatal(err)
	}
	if storetest.Hash(path) != before {
		t.Error("recover wrote to the damaged file")
	}
	if rep.Sessions != len(ids) {
		t.Errorf("recovered %d sessions of %d", rep.Sessions, len(ids))
	}
	damaged := map[string]int64{} // session -> first lost seq
	for _, l := range lost {
		sid, seqText, _ := strings.Cut(l, "/")
		var seq int64
		fmt.Sscan(seqText, &seq)
		if first, ok := damaged[sid]; !ok || seq < first {
			damaged[sid] = seq
		}
	}
	var named []string
	for _, p := range rep.NotSaved {
		named = append(named, fmt.Sprintf("%s/%d", p.SessionID, p.Seq))
	}
	for sid, first := range damaged {
		if !slicesContains(named, fmt.Sprintf("%s/%d", sid, first)) {
			t.Errorf("the report does not say session %s lost rows from %d: %v", sid, first, named)
		}
	}
	ps, err := store.Check(ctx, out)
	if err != nil || len(ps) != 0 {
		t.Fatalf("the recovered file fails its check: %v %+v", err, ps)
	}
	db := openPath(t, out)
	for _, id := range ids {
		rows, err := db.Chunks(ctx, id)
		if err != nil {
			t.Fatalf("session %s: %v", id, err)
		}
		first, hit := damaged[id]
		switch {
		case !hit && len(rows) != 100:
			t.Errorf("undamaged session %s: %d rows of 100", id, len(rows))
		case hit && int64(len(rows)) < first-1:
			t.Errorf("damaged session %s: %d rows, want at least the %d before the damage", id, len(rows), first-1)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A backup taken while another connection writes is a consistent snapshot that passes the
// check and holds every row committed before it began.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "loopdesk.db")
	journalFile(t, path, 3, 10)
	db := openPath(t, path)
	s := mustSession(t, db, "busy")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if _, err := db.Append(ctx, s.ID, "", user(fmt.Sprintf("row %d", i))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 3; i++ {
		dst := filepath.Join(dir, fmt.Sprintf("backup-%d.db", i))
		ps, err := store.Backup(ctx, path, dst)
		if err != nil || len(ps) != 0 {
			t.Fatalf("backup %d: %v %+v", i, err, ps)
		}
	}
	<-done
	dst := filepath.Join(dir, "final.db")
	if ps, err := store.Backup(ctx, path, dst); err != nil || len(ps) != 0 {
		t.Fatalf("final backup: %v %+v", err, ps)
	}
	b := openPath(t, dst)
	rows, err := b.Chunks(ctx, s.ID)
	if err != nil || len(rows) != 200 {
		t.Fatalf("the backup holds %d of 200 rows: %v", len(rows), err)
	}
	if _, err := os.Stat(dst + "-wal"); err == nil {
		if fi, _ := os.Stat(dst + "-wal"); fi.Size() > 0 {
			t.Log("backup opened in WAL mode by the store")
		}
	}
}

func TestRestoreKeepsTheFileBeforeIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, backup := filepath.Join(dir, "loopdesk.db"), filepath.Join(dir, "b.db")
	journalFile(t, path, 2, 3)
	if _, err := store.Backup(ctx, path, backup); err != nil {
		t.Fatal(err)
	}
	db := openPath(t, path)
	mustSession(t, db, "after the backup")
	db.Close()
	current := storetest.Hash(path)
	if err := store.Restore(ctx, backup, path, []string{"loopdesk (pid 1)"}); !errors.Is(err, store.ErrInUse) {
		t.Fatalf("restore while in use: %v", err)
	}
	if err := store.Restore(ctx, backup, path, nil); err != nil {
		t.Fatal(err)
	}
	if storetest.Hash(path+".before-restore") != current {
		t.Error("the file before the restore was not kept beside it")
	}
	db = openPath(t, path)
	ss, err := db.ListSessions(ctx)
	if err != nil || len(ss) != 2 {
		t.Fatalf("restored journal: %d sessions, %v", len(ss), err)
	}
}
