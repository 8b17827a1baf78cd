package fakeai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Refusing images on demand, the way real servers do, so tests meet the refusal a person
// would: a request carrying an image the fake is told to refuse is answered with the status
// and error body the real server sends (OpenAI's invalid_request_error at /v1/chat/completions,
// Anthropic's at /v1/messages, which names the refused block by its path), before any
// scripted reply is used. A request without such an image is served as usual.

// ImageRefusal says which images the fake refuses and in which words. The zero value refuses
// nothing.
type ImageRefusal struct {
	// Reason: "format" (an image the server cannot read), "too_large" (over MinBytes) or
	// "text_only" (the model takes no images at all); "" turns refusing off.
	Reason string `json:"reason"`
	// MinBytes refuses only images whose data is at least this many bytes; 0: every image.
	MinBytes int `json:"min_bytes"`
}

// WithImageRefusal starts the server refusing images as r says.
func WithImageRefusal(r ImageRefusal) Option { return func(s *Server) { s.imageRefusal = r } }

// RefuseImages changes which images are refused while the server runs (also POST
// /_fake/refuse_images with {"reason": "...", "min_bytes": N}).
func (s *Server) RefuseImages(r ImageRefusal) {
	s.mu.Lock()
	s.imageRefusal = r
	s.mu.Unlock()
}

func (s *Server) refusal() ImageRefusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.imageRefusal
}

// refused finds the first image the refusal covers: its message and content index and size.
func (r ImageRefusal) refused(msgs []json.RawMessage, partType string, dataOf func(json.RawMessage) (string, bool)) (int, int, int, bool) {
	if r.Reason == "" {
		return 0, 0, 0, false
	}
	for i, content := range msgs {
		var parts []json.RawMessage
		if json.Unmarshal(content, &parts) != nil {
			continue // a plain string: no image
		}
		for j, p := range parts {
			var head struct{ Type string }
			if json.Unmarshal(p, &head) != nil || head.Type != partType {
				continue
			}
			b64, ok := dataOf(p)
			if !ok {
				continue
			}
			n := base64.StdEncoding.DecodedLen(len(b64))
			if n >= r.MinBytes {
				return i, j, n, true
			}
		}
	}
	return 0, 0, 0, false
}

// refuseChatImage answers a chat request carrying a refused image_url part, and reports
// whether it did.
func (s *Server) refuseChatImage(w http.ResponseWriter, req chatRequest) bool {
	r := s.refusal()
	contents := make([]json.RawMessage, len(req.Messages))
	for i, m := range req.Messages {
		contents[i] = m.Content
	}
	i, j, _, ok := r.refused(contents, "image_url", func(p json.RawMessage) (string, bool) {
		var part struct {
			ImageURL struct{ URL string } `json:"image_url"`
		}
		if json.Unmarshal(p, &part) != nil {
			return "", false
		}
		_, b64, found := strings.Cut(part.ImageURL.URL, ";base64,")
		return b64, found
	})
	if !ok {
		return false
	}
	msg, code, param := "You uploaded an unsupported image. Please make sure your image has of one the following formats: "+
		"['png', 'jpeg', 'gif', 'webp'].", any("invalid_image_format"), any(nil)
	switch r.Reason {
	case "too_large":
		msg, code = "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one "+
			"the following formats: ['png', 'jpeg', 'gif', 'webp'].", "sanitizer_server_error"
	case "text_only":
		msg, code, param = "Invalid content type. image_url is only supported by certain models.", nil,
			fmt.Sprintf("messages.[%d].content.[%d].type", i, j)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": code}})
	_, _ = w.Write(b)
	return true
}

// refuseAnthropicImage answers a Messages request carrying a refused image block, naming the
// block by its path as Anthropic does, and reports whether it did.
func (s *Server) refuseAnthropicImage(w http.ResponseWriter, req *messagesRequest) bool {
	r := s.refusal()
	contents := make([]json.RawMessage, len(req.Messages))
	for i, m := range req.Messages {
		contents[i] = m.Content
	}
	var mediaType string
	i, j, n, ok := r.refused(contents, "image", func(p json.RawMessage) (string, bool) {
		var b struct {
			Source struct {
				Type, Data string
				MediaType  string `json:"media_type"`
			}
		}
		if json.Unmarshal(p, &b) != nil || b.Source.Type != "base64" {
			return "", false
		}
		mediaType = b.Source.MediaType
		return b.Source.Data, true
	})
	if !ok {
		return false
	}
	path := fmt.Sprintf("messages.%d.content.%d.image.source.base64", i, j)
	msg := fmt.Sprintf("%s: The image was specified using the %s media type, but does not appear to be a valid %s image",
		path, mediaType, strings.TrimPrefix(mediaType, "image/"))
	switch r.Reason {
	case "too_large":
		msg = fmt.Sprintf("%s: image exceeds %d bytes maximum: %d bytes > %d bytes", path, r.MinBytes, n, r.MinBytes)
	case "text_only":
		msg = fmt.Sprintf("messages.%d.content.%d: this model does not support image input", i, j)
	}
	writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", msg)
	return true
}

func (s *Server) setImageRefusal(w http.ResponseWriter, body []byte) {
	var in ImageRefusal
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, `refuse_images wants {"reason": "format"|"too_large"|"text_only"|"", "min_bytes": N}: `+err.Error(), http.StatusBadRequest)
		return
	}
	switch in.Reason {
	case "", "format", "too_large", "text_only":
	default:
		http.Error(w, fmt.Sprintf("refuse_images: unknown reason %q", in.Reason), http.StatusBadRequest)
		return
	}
	s.RefuseImages(in)
	w.WriteHeader(http.StatusNoContent)
}
