package checkpoint_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
)

func blobCount(t *testing.T, e *env) int {
	t.Helper()
	var n int
	if err := e.db.SQL().QueryRow(`SELECT (SELECT count(*) FROM cp_blobs) + (SELECT count(*) FROM cp_chunks) + (SELECT count(*) FROM cp_blob_chunks)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Export carries the change records (and, asked to, the contents); the
// import restores like the original; deleting sessions frees the blobs.
func TestExportImportAndDelete(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	before := snapshot(t, e.dir)
	seq, _ := e.call(e.sh(`echo changed > a.txt && rm b.bin && echo n > n.txt`))
	var with, without bytes.Buffer
	if err := checkpoint.Export(e.ctx, e.db, e.sid, &with, true); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.Export(e.ctx, e.db, e.sid, &without, false); err != nil {
		t.Fatal(err)
	}
	if strings.Count(with.String(), `"type":"change"`) != 3 || !strings.Contains(with.String(), `"type":"blob"`) ||
		strings.Contains(without.String(), `"type":"blob"`) {
		t.Fatalf("export:\n%s", with.String())
	}
	if err := e.db.DeleteSession(e.ctx, e.sid); err != nil {
		t.Fatal(err)
	}
	if n := blobCount(t, e); n != 0 {
		t.Fatalf("%d blobs left after deleting the only session", n)
	}

	// Without contents: the records come back, the old contents cannot.
	imp, err := checkpoint.Import(e.ctx, e.db, bytes.NewReader(without.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := e.rec.Changes(e.ctx, imp.ID)
	if err != nil || summary(ch) != "modified a.txt\ndeleted b.bin\ncreated n.txt\n" || ch[0].Seq != seq {
		t.Fatalf("imported changes: %v\n%s", err, summary(ch))
	}
	p, err := e.rec.Restore(e.ctx, imp.ID, checkpoint.RestoreOptions{ToSeq: seq, DryRun: true})
	if err != nil || len(p.Unrestorable) != 2 {
		t.Fatalf("without contents, a.txt and b.bin cannot come back: %+v %v", p, err)
	}

	imp2, err := checkpoint.Import(e.ctx, e.db, bytes.NewReader(with.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.rec.Restore(e.ctx, imp2.ID, checkpoint.RestoreOptions{ToSeq: seq}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, e.dir))
	for _, id := range []string{imp.ID, imp2.ID} {
		if err := e.db.DeleteSession(e.ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if n := blobCount(t, e); n != 0 {
		t.Fatalf("%d blobs left after deleting every session", n)
	}
}

// A forged blob (content not matching its hash) is never written.
func TestImportForgedBlob(t *testing.T) {
	e := newEnv(t, checkpoint.Options{}, start)
	seq, _ := e.call(e.sh(`echo changed > a.txt`))
	var buf bytes.Buffer
	if err := checkpoint.Export(e.ctx, e.db, e.sid, &buf, true); err != nil {
		t.Fatal(err)
	}
	e.db.DeleteSession(e.ctx, e.sid)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, l := range lines { // damage every blob
		if strings.Contains(l, `"type":"blob"`) {
			lines[i] = strings.Replace(l, `"deflate":"`, `"deflate":"AAAA`, 1)
		}
	}
	imp, err := checkpoint.Import(e.ctx, e.db, strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.rec.Restore(e.ctx, imp.ID, checkpoint.RestoreOptions{ToSeq: seq, DryRun: true})
	if err != nil || len(p.Unrestorable) != 1 {
		t.Fatalf("a damaged blob must count as not stored: %+v %v", p, err)
	}
}
