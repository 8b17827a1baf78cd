package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// An image a provider refused is left out by an appended row: the user row is untouched, the
// next messages carry the text and say the image was left out, and the incremental cache
// agrees with a derivation from scratch. An exclusion pointing at nothing is refused.
func TestAnExcludedImageLeavesTheContextAndTheRowStays(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	s := mustSession(t, db, "s")
	h, err := db.PutBlob(ctx, store.Blob{MIME: "image/png", Width: 4, Height: 3, Data: []byte("\x89PNG\r\n\x1a\n pixels")})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.ImageRef{Hash: h, MIME: "image/png", Width: 4, Height: 3, Name: "shot.png"}
	user, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "see", Images: []store.ImageRef{ref}}})
	if err != nil {
		t.Fatal(err)
	}
	var tc store.TurnCache
	rows, _ := db.Chunks(ctx, s.ID)
	if msgs, _ := tc.Turns(rows); len(msgs[0].ImageRefs) != 1 {
		t.Fatalf("before: %+v", msgs)
	}
	for _, bad := range []store.ImageExcludedPayload{
		{},
		{Images: []store.ExcludedImage{{Seq: 9, Hash: h}}},
		{Images: []store.ExcludedImage{{Seq: user[0].Seq, Hash: strings.Repeat("0", 64)}}},
	} {
		if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindImageExcluded, Payload: bad}); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	if _, err := db.Append(ctx, s.ID, "", store.NewChunk{Kind: store.KindImageExcluded, Payload: store.ImageExcludedPayload{
		Images: []store.ExcludedImage{{Seq: user[0].Seq, Hash: h}}, Reason: "400 Invalid image.", Provider: "default", Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	rows, _ = db.Chunks(ctx, s.ID)
	if string(rows[0].Payload) != string(user[0].Payload) {
		t.Fatal("the user row changed")
	}
	fresh, err := store.Turns(rows)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := tc.Turns(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 1 || len(fresh[0].ImageRefs) != 0 || !strings.HasPrefix(fresh[0].Text, "see\n\n[loopdesk note: the person attached the image shot.png") {
		t.Fatalf("after: %+v", fresh)
	}
	if len(cached) != 1 || cached[0].Text != fresh[0].Text || len(cached[0].ImageRefs) != 0 {
		t.Fatalf("the cache kept the image: %+v", cached)
	}
}
