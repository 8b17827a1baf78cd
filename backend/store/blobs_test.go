package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestImagesAreStoredOnceAndRowsNeverPointAtNothing(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	png := []byte("\x89PNG\r\n\x1a\n pretend pixels")
	h1, err := db.PutBlob(ctx, store.Blob{MIME: "image/png", Width: 4, Height: 3, Data: png})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := db.PutBlob(ctx, store.Blob{MIME: "image/png", Width: 4, Height: 3, Data: bytes.Clone(png)})
	if err != nil || h2 != h1 || len(h1) != 64 {
		t.Fatalf("the same bytes twice: %q then %q, %v", h1, h2, err)
	}
	b, err := db.GetBlob(ctx, h1)
	if err != nil || !bytes.Equal(b.Data, png) || b.MIME != "image/png" || b.Width != 4 {
		t.Fatalf("GetBlob = %+v, %v", b, err)
	}
	if _, err := db.GetBlob(ctx, "00"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a missing blob: %v", err)
	}

	ref := store.ImageRef{Hash: h1, MIME: "image/png", Width: 4, Height: 3, Name: "shot.png"}
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "see", Images: []store.ImageRef{ref}}}); err != nil {
		t.Fatal(err)
	}
	missing := ref
	missing.Hash = "ab" + h1[2:]
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "x", Images: []store.ImageRef{missing}}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a row naming an image not stored: %v", err)
	}
	// A fork shares the blob: its copied row still reads.
	f, err := db.Fork(ctx, s.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Chunks(ctx, f.ID)
	if len(rows) != 1 || !bytes.Contains(rows[0].Payload, []byte(h1)) {
		t.Fatalf("fork rows = %s", rows[0].Payload)
	}
	if _, err := db.PutBlob(ctx, store.Blob{MIME: "image/png"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an empty blob: %v", err)
	}
}

func TestImagesSurviveExportAndImport(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	data := []byte("GIF89a pretend pixels")
	h, err := db.PutBlob(ctx, store.Blob{MIME: "image/gif", Width: 2, Height: 2, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.ImageRef{Hash: h, MIME: "image/gif", Width: 2, Height: 2}
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "a", Images: []store.ImageRef{ref, ref}}}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := db.Export(ctx, s.ID, &out); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out.Bytes(), []byte(`"type":"image"`)); n != 1 {
		t.Fatalf("%d image lines; want the one image once:\n%s", n, out.String())
	}
	other, _ := openTemp(t)
	imp, err := other.Import(ctx, bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.GetBlob(ctx, h)
	if err != nil || !bytes.Equal(b.Data, data) {
		t.Fatalf("the imported image: %+v, %v", b, err)
	}
	rows, _ := other.Chunks(ctx, imp.ID)
	if len(rows) != 1 || !bytes.Contains(rows[0].Payload, []byte(h)) {
		t.Fatalf("imported rows: %+v", rows)
	}
	// An export without its image line (a row naming nothing) is refused whole.
	var broken []byte
	for _, l := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
		if !bytes.Contains(l, []byte(`"type":"image"`)) {
			broken = append(broken, l...)
		}
	}
	third, _ := openTemp(t)
	if _, err := third.Import(ctx, bytes.NewReader(broken)); !errors.Is(err, store.ErrBadImport) {
		t.Fatalf("an export without its image: %v", err)
	}
	if list, _ := third.ListSessions(ctx); len(list) != 0 {
		t.Fatalf("a refused import left %d sessions", len(list))
	}
}
