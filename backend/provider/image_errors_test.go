package provider

import (
	"context"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// Real answers servers give to a request refused because of an image it carries, as a person
// would meet them (quoted from reports against those servers); each must be classified so the
// runner leaves the image out and asks again, and nothing else may be.
func TestImageRefusalsAreClassified(t *testing.T) {
	cases := []struct {
		server    string
		anthropic bool
		status    int
		body      string
		want, all bool
	}{
		{"openai unsupported format", false, 400, `{"error":{"message":"You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].","type":"invalid_request_error","param":null,"code":"invalid_image_format"}}`, true, false},
		{"openai too large", false, 400, `{"error":{"message":"You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one the following formats: ['png', 'jpeg', 'gif', 'webp'].","type":"invalid_request_error","param":null,"code":"sanitizer_server_error"}}`, true, false},
		{"openai invalid image", false, 400, `{"error":{"message":"Invalid image.","type":"invalid_request_error","param":null,"code":null}}`, true, false},
		{"openai text-only model", false, 400, `{"error":{"message":"Invalid content type. image_url is only supported by certain models.","type":"invalid_request_error","param":"messages.[0].content.[1].type","code":null}}`, true, true},
		{"deepseek", false, 422, `{"error":{"message":"Failed to deserialize the JSON body into the target type: messages[0]: unknown variant ` + "`image_url`" + `, expected ` + "`text`" + ` at line 1 column 170","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, true, true},
		{"glm gateway", false, 400, `{"message":"this model does not support image input (ref: 1f2e)","type":"invalid_request_error","param":null,"code":null}`, true, true},
		{"openrouter no vision endpoint", false, 404, `{"error":{"message":"No endpoints found that support image input","code":404}}`, true, true},
		{"anthropic too large", true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.2.image.source.base64: image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes"},"request_id":"req_011CUcqvXBc6AskCDuW4mM1q"}`, true, false},
		{"anthropic dimensions", true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.7.content.2.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels"}}`, true, false},
		{"anthropic bad data", true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.image.source.base64: The image was specified using the image/png media type, but does not appear to be a valid png image"}}`, true, false},
		{"anthropic could not process", true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"Could not process image"}}`, true, false},
		{"other 400", false, 400, `{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","code":"invalid_value"}}`, false, false},
		{"a plain 404", false, 404, `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, false, false},
		{"anthropic other", true, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`, false, false},
		{"a server error naming an image", false, 500, `{"error":{"message":"Invalid image.","type":"server_error"}}`, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.server, func(t *testing.T) {
			srv := startFake(t)
			for range 4 { // a 500 is retried
				srv.Enqueue(fakeai.HTTPError(tc.status, tc.body))
			}
			var m Model
			if tc.anthropic {
				m, _ = newAnthropic(t, srv, func(cfg *Config) { cfg.MaxRetries = 0 })
			} else {
				m, _ = newClient(t, srv.URL(), func(cfg *Config) { cfg.MaxRetries = 0 })
			}
			r := m.Stream(context.Background(), Request{Messages: userMsg("x")}, Handler{})
			if r.Err == nil {
				t.Fatal("no error")
			}
			if got := ImageRejected(r.Err); got != tc.want {
				t.Fatalf("ImageRejected = %v, want %v (%v)", got, tc.want, r.Err)
			}
			if got := RefusesAllImages(r.Err); got != tc.all {
				t.Fatalf("RefusesAllImages = %v, want %v (%v)", got, tc.all, r.Err)
			}
			if ContextExceeded(r.Err) {
				t.Fatalf("classified as context length: %v", r.Err)
			}
		})
	}
}
