package fakeai

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// The fake refuses an image on demand with the real servers' status and error shape, and
// serves a request without such an image as usual.
func TestRefusesImagesLikeTheRealServers(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	small := base64.StdEncoding.EncodeToString(make([]byte, 100))
	big := base64.StdEncoding.EncodeToString(make([]byte, 3000))
	chat := func(b64 string) string {
		return `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"look"},` +
			`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64 + `"}}]}]}`
	}
	url := s.URL() + "/chat/completions"
	if code, body := postJSON(t, url, nil, chat(big)); code != 200 {
		t.Fatalf("not refusing yet: %d %s", code, body)
	}
	code, body := postJSON(t, s.URL()[:len(s.URL())-3]+"/_fake/refuse_images", nil, `{"reason":"text_only"}`)
	if code != 204 {
		t.Fatalf("control: %d %s", code, body)
	}
	code, body = postJSON(t, url, nil, chat(small))
	var e struct {
		Error struct {
			Message, Type string
			Param         *string
		}
	}
	if code != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Type != "invalid_request_error" ||
		!strings.Contains(e.Error.Message, "image_url is only supported by certain models") || e.Error.Param == nil ||
		*e.Error.Param != "messages.[1].content.[1].type" {
		t.Fatalf("text_only: %d %s", code, body)
	}
	// Only images of at least MinBytes: the small one passes, the big one is refused.
	s.RefuseImages(ImageRefusal{Reason: "too_large", MinBytes: 1000})
	if code, body := postJSON(t, url, nil, chat(small)); code != 200 {
		t.Fatalf("small image: %d %s", code, body)
	}
	if code, body := postJSON(t, url, nil, chat(big)); code != 400 || !strings.Contains(body, "below 20 MB") {
		t.Fatalf("big image: %d %s", code, body)
	}
	if code, _ := postJSON(t, url, nil, `{"model":"m","messages":[{"role":"user","content":"no image"}]}`); code != 200 {
		t.Fatalf("no image: %d", code)
	}
	// Anthropic names the refused block by its path.
	s.RefuseImages(ImageRefusal{Reason: "format"})
	msgs := `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":[` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + small + `"}},{"type":"text","text":"look"}]}]}`
	code, body = postJSON(t, s.URL()+"/messages", map[string]string{"anthropic-version": "2023-06-01"}, msgs)
	if code != 400 || !strings.Contains(body, `"type":"invalid_request_error"`) ||
		!strings.Contains(body, "messages.0.content.0.image.source.base64: The image was specified using the image/png media type, but does not appear to be a valid png image") {
		t.Fatalf("anthropic: %d %s", code, body)
	}
	if code, body := postJSON(t, s.URL()[:len(s.URL())-3]+"/_fake/refuse_images", nil, `{"reason":"blurry"}`); code != 400 {
		t.Fatalf("an unknown reason was taken: %d %s", code, body)
	}
	s.Reset() // stops refusing
	if code, _ := postJSON(t, url, nil, chat(big)); code != 200 {
		t.Fatalf("after reset: %d", code)
	}
}
