package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// imagesSent counts the image_url parts of a recorded chat request.
func imagesSent(t *testing.T, r fakeai.Request) int {
	t.Helper()
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range body.Messages {
		n += bytes.Count(m.Content, []byte(`"type":"image_url"`))
	}
	return n
}

func exclusionRows(t *testing.T, db *store.DB, sid string) []store.ImageExcludedPayload {
	t.Helper()
	rows, err := db.Chunks(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.ImageExcludedPayload
	for _, r := range rows {
		if r.Kind == store.KindImageExcluded {
			var p store.ImageExcludedPayload
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

// A provider refusing an image: the image is left out by an image_excluded row (its user row
// untouched), the call is made once more without it and the session goes on; the exclusion
// holds after reopening, in a fork and after export/import; a second refusal ends the run
// instead of looping.
func TestARefusedImageIsExcludedAndTheCallRetriedOnce(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	put := func(w, hgt int) store.ImageRef {
		data := pngOf(t, w, hgt)
		hash, err := h.db.PutBlob(ctx, store.Blob{Data: data, MIME: "image/png", Width: w, Height: hgt})
		if err != nil {
			t.Fatal(err)
		}
		return store.ImageRef{Hash: hash, MIME: "image/png", Width: w, Height: hgt, Name: "shot.png"}
	}
	small, big := put(20, 10), put(600, 400)
	sid := h.session()
	h.srv.Enqueue(fakeai.Text("A small picture."))
	if res := h.run(loop.RunSpec{SessionID: sid, Prompt: "first", Images: []store.ImageRef{small}, Model: "gpt-4o"}); res.Status != core.StopCompleted {
		t.Fatalf("%s: %s", res.Status, res.Error)
	}
	// The server now refuses the big image the way OpenAI does.
	h.srv.RefuseImages(fakeai.ImageRefusal{Reason: "too_large", MinBytes: 2000})
	h.srv.Enqueue(fakeai.Text("I only see the small one."))
	res := h.run(loop.RunSpec{SessionID: sid, Prompt: "second", Images: []store.ImageRef{big}, Model: "gpt-4o"})
	if res.Status != core.StopCompleted || res.Output != "I only see the small one." {
		t.Fatalf("%s: %s %q", res.Status, res.Error, res.Output)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 || imagesSent(t, reqs[1]) != 2 || imagesSent(t, reqs[2]) != 1 {
		t.Fatalf("%d requests; want the refused one with 2 images, then one retry with 1", len(reqs))
	}
	if !strings.Contains(string(reqs[2].Body), "left out of this conversation because the provider refused it") {
		t.Fatalf("the retry does not tell the model: %.400s", reqs[2].Body)
	}
	ex := exclusionRows(t, h.db, sid)
	if len(ex) != 1 || len(ex[0].Images) != 1 || ex[0].Images[0].Hash != big.Hash || !strings.Contains(ex[0].Reason, "unsupported image") || ex[0].Model != "gpt-4o" {
		t.Fatalf("exclusions %+v", ex)
	}
	if b, err := h.db.GetBlob(ctx, big.Hash); err != nil || len(b.Data) == 0 {
		t.Fatalf("the refused image is gone: %v", err)
	}
	h.rec.waitFor(t, "the exclusion row published", func(e bus.Event) bool {
		p, ok := e.Payload.(bus.RowsStoredPayload)
		return ok && len(p.Rows) == 1 && p.Rows[0].Kind == store.KindImageExcluded
	})

	// Reopened (a new runner over the same database), in a fork and in an import, the next
	// request carries the small image only.
	reopened := loop.New(loop.Config{Store: h.db, Approver: h.approver, Tools: toolsOf(t), Workspaces: wsOf(), Model: modelOf(h),
		Extensions: h.cfg.Extensions})
	t.Cleanup(reopened.Close)
	fork, err := h.db.Fork(ctx, sid, int64(len(mustChunks(t, h.db, sid))))
	if err != nil {
		t.Fatal(err)
	}
	var exported bytes.Buffer
	if err := h.db.Export(ctx, sid, &exported); err != nil {
		t.Fatal(err)
	}
	imported, err := h.db.Import(ctx, &exported)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, sid string
		r         *loop.Runner
	}{{"reopened", sid, reopened}, {"fork", fork.ID, h.runner}, {"import", imported.ID, h.runner}} {
		before := len(h.srv.Requests())
		id, err := c.r.Start(ctx, loop.RunSpec{SessionID: c.sid, Prompt: "again", Model: "gpt-4o", Mode: tools.ModeAuto})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := c.r.Wait(ctx, id); err != nil || res.Status != core.StopCompleted {
			t.Fatalf("%s: %+v %v", c.name, res, err)
		}
		reqs := h.srv.Requests()
		if len(reqs) != before+1 || imagesSent(t, reqs[before]) != 1 {
			t.Fatalf("%s: %d requests, %d images", c.name, len(reqs)-before, imagesSent(t, reqs[len(reqs)-1]))
		}
	}

	// Every image refused, and the retry refused too: one exclusion, two requests, the run
	// ends on the provider's error.
	h.srv.RefuseImages(fakeai.ImageRefusal{Reason: "format"})
	h.srv.Enqueue(fakeai.HTTPError(400, `{"error":{"message":"Invalid image.","type":"invalid_request_error","param":null,"code":null}}`))
	before := len(h.srv.Requests())
	res = h.run(loop.RunSpec{SessionID: sid, Prompt: "third", Model: "gpt-4o"})
	if res.Status != core.StopProviderError || !strings.Contains(res.Error, "Invalid image") {
		t.Fatalf("%s: %s", res.Status, res.Error)
	}
	if n := len(h.srv.Requests()) - before; n != 2 {
		t.Fatalf("%d requests after a second refusal; want 2", n)
	}
	if ex := exclusionRows(t, h.db, sid); len(ex) != 2 || ex[1].Images[0].Hash != small.Hash {
		t.Fatalf("exclusions %+v", ex)
	}
}

// The person's vision setting wins over the default from the model's name: "on" sends images
// to a model whose name says text-only, "off" sends none to one whose name says it sees.
func TestTheVisionSettingDecidesWhetherImagesAreSent(t *testing.T) {
	h := newHarness(t)
	data := pngOf(t, 20, 10)
	hash, err := h.db.PutBlob(context.Background(), store.Blob{Data: data, MIME: "image/png", Width: 20, Height: 10})
	if err != nil {
		t.Fatal(err)
	}
	ref := store.ImageRef{Hash: hash, MIME: "image/png", Width: 20, Height: 10}
	for i, c := range []struct {
		model  string
		vision images.Vision
		want   int
	}{{"deepseek-chat", images.VisionAuto, 0}, {"deepseek-chat", images.VisionOn, 1}, {"gpt-4o", images.VisionOff, 0}, {"gpt-4o", images.VisionAuto, 1}} {
		res := h.run(loop.RunSpec{SessionID: h.session(), Prompt: "look", Images: []store.ImageRef{ref}, Model: c.model, Vision: c.vision})
		if res.Status != core.StopCompleted {
			t.Fatalf("%s: %s", res.Status, res.Error)
		}
		if got := imagesSent(t, h.srv.Requests()[i]); got != c.want {
			t.Errorf("%s with vision %q: %d images sent; want %d", c.model, c.vision, got, c.want)
		}
	}
}

// The same through Anthropic's Messages API: its refusal (an invalid_request_error naming the
// image block's path) leaves the image out and the retry goes through.
func TestAnAnthropicImageRefusalIsRetriedWithoutTheImage(t *testing.T) {
	h, sw := newFidelity(t)
	sw.set(anthropicAs(h, "claude", 0))
	data := pngOf(t, 20, 10)
	hash, err := h.db.PutBlob(context.Background(), store.Blob{Data: data, MIME: "image/png", Width: 20, Height: 10})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.RefuseImages(fakeai.ImageRefusal{Reason: "format"})
	h.srv.Enqueue(fakeai.Text("Only your words reached me."))
	sid := h.session()
	res := runOK(t, h, loop.RunSpec{SessionID: sid, Prompt: "look", Model: "claude-sonnet-4-5",
		Images: []store.ImageRef{{Hash: hash, MIME: "image/png", Width: 20, Height: 10, Name: "bad.png"}}})
	if res.Output != "Only your words reached me." {
		t.Fatalf("output %q", res.Output)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !bytes.Contains(reqs[0].Body, []byte(`"type":"image"`)) || bytes.Contains(reqs[1].Body, []byte(`"type":"image"`)) {
		t.Fatalf("%d requests; want the refused one with the image block, then one without", len(reqs))
	}
	if ex := exclusionRows(t, h.db, sid); len(ex) != 1 || ex[0].Provider != "claude" || !strings.Contains(ex[0].Reason, "messages.0.content.0.image.source.base64") {
		t.Fatalf("exclusions %+v", ex)
	}
}
