package images

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

func TestUserRowContentSendsTheStoredImagesFitted(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	big := encodePNG(t, flat(1600, 800))
	hash, err := db.PutBlob(ctx, store.Blob{MIME: PNG, Width: 1600, Height: 800, Data: big})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.ImageRef{Hash: hash, MIME: PNG, Width: 1600, Height: 800, Name: "big.png"}
	p := store.UserPayload{Text: "look", Images: []store.ImageRef{ref, {Hash: hash, Excluded: true}}}

	got, err := UserRowContent(ctx, db, p, Limits{}, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	parts, ok := got.([]Part)
	if !ok || len(parts) != 2 || parts[0].Text != "look" || parts[1].Type != "image_url" {
		t.Fatalf("content = %#v; want the text and one image (the excluded one left out)", got)
	}
	data, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(parts[1].ImageURL.URL, "data:image/png;base64,"))
	if img, err := Sniff(data); err != nil || img.Width != 1568 || img.Height != 784 {
		t.Fatalf("the data URL is %dx%d, %v; want 1568x784", img.Width, img.Height, err)
	}
	b, _ := json.Marshal(map[string]any{"role": "user", "content": got})
	if !strings.Contains(string(b), `"type":"image_url","image_url":{"url":"data:image/png;base64,`) {
		t.Fatalf("wire form: %.200s", b)
	}
	// A text-only model: the text alone, as a plain string.
	if got, err := UserRowContent(ctx, db, p, Limits{}, 1, false); err != nil || got != "look" {
		t.Fatalf("text-only model: %#v, %v", got, err)
	}
	row, _ := json.Marshal(p)
	n, err := CountImages([]store.Chunk{{Kind: store.KindUser, Payload: row}, {Kind: store.KindUser, Payload: row}}, true)
	if err != nil || n != 2 {
		t.Fatalf("CountImages = %d, %v; want 2 (excluded ones not counted)", n, err)
	}
}
