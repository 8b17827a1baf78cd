package desktop_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func pngBase64(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestSendWithImagesStoresThemOnceAndNamesThemFromTheRow(t *testing.T) {
	srv := startFake(t)
	srv.Enqueue(fakeai.Text("A grey square."))
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	img := pngBase64(t, 30, 20)
	runID, err := app.SendWithImages(s.ID, "what is this?", []desktop.ImageInput{{Name: "a.png", Data: img}, {Name: "copy.png", Data: "data:image/png;base64," + img}})
	if err != nil {
		t.Fatal(err)
	}
	app.rec.runFinished(t, runID)
	v, err := app.OpenSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	u := payload[store.UserPayload](t, v.Rows[0].Chunk)
	if u.Text != "what is this?" || len(u.Images) != 2 || u.Images[0].Hash != u.Images[1].Hash || u.Images[0].Width != 30 || u.Images[1].Name != "copy.png" {
		t.Fatalf("user row = %+v", u)
	}
	url, err := app.Image(u.Images[0].Hash)
	if err != nil || url != "data:image/png;base64,"+img {
		t.Fatalf("Image = %.40s…, %v", url, err)
	}
}

func TestABadImageIsRefusedAndNothingIsSent(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	for _, bad := range []desktop.ImageInput{
		{Name: "notes.pdf", Data: base64.StdEncoding.EncodeToString([]byte("%PDF-1.7"))},
		{Name: "cut.png", Data: pngBase64(t, 30, 20)[:60]},
		{Name: "x.png", Data: "!!! not base64"},
	} {
		_, err := app.SendWithImages(s.ID, "look", []desktop.ImageInput{{Name: "ok.png", Data: pngBase64(t, 4, 4)}, bad})
		if !errors.Is(err, desktop.ErrInvalidInput) || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("%s: %v; want an error naming it", bad.Name, err)
		}
	}
	if v, _ := app.OpenSession(s.ID); len(v.Rows) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("a refused send left %d rows and made %d requests", len(v.Rows), len(srv.Requests()))
	}
	if sees, err := app.SeesImages(); err != nil || !sees {
		t.Fatalf("fake-model sees images: %v, %v", sees, err)
	}
}
