package loop_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// pngOf is a w×h PNG.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// An image sent with a prompt reaches the model as an image_url part whose data URL decodes
// to the image scaled within the limits (long edge ≤ 1568 px); the stored original is kept.
// A text-only model gets the text alone.
func TestImagesReachTheModelFitted(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	big := pngOf(t, 3000, 1000)
	hash, err := h.db.PutBlob(ctx, store.Blob{Data: big, MIME: "image/png", Width: 3000, Height: 1000})
	if err != nil {
		t.Fatal(err)
	}
	sid := h.session()
	h.srv.Enqueue(fakeai.Text("A wide red picture."), fakeai.Text("Still only text for me."))
	ref := store.ImageRef{Hash: hash, MIME: "image/png", Width: 3000, Height: 1000}
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "what is this?", Images: []store.ImageRef{ref}, Model: "gpt-4o"}); res.Status != core.StopCompleted {
		t.Fatalf("%s: %s", res.Status, res.Error)
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(h.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(body.Messages[len(body.Messages)-1].Content, &parts); err != nil || len(parts) != 2 {
		t.Fatalf("the user message is not text + one image part: %s (%v)", body.Messages[len(body.Messages)-1].Content, err)
	}
	if parts[0].Type != "text" || parts[0].Text != "what is this?" || parts[1].Type != "image_url" {
		t.Fatalf("parts %+v", parts)
	}
	data, ok := strings.CutPrefix(parts[1].ImageURL.URL, "data:image/png;base64,")
	if !ok {
		t.Fatalf("not a PNG data URL: %.60s", parts[1].ImageURL.URL)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 1568 || cfg.Height > 523 || cfg.Height < 522 {
		t.Fatalf("sent image %dx%d (%v), want the long edge fitted to 1568", cfg.Width, cfg.Height, err)
	}
	if b, _ := h.db.GetBlob(ctx, hash); !bytes.Equal(b.Data, big) {
		t.Fatal("the stored original changed")
	}

	// A text-only model: the same session's next request carries no image at all.
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "and now?", Model: "deepseek-chat"}); res.Status != core.StopCompleted {
		t.Fatalf("%s: %s", res.Status, res.Error)
	}
	if last := string(h.srv.Requests()[1].Body); strings.Contains(last, "image_url") || !strings.Contains(last, `"content":"what is this?"`) {
		t.Fatalf("a text-only model was sent the image: %.300s", last)
	}
}
