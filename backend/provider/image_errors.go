package provider

import (
	"errors"
	"strings"
)

// Servers refuse a request because of an image it carries in their own words: a format they
// do not read, a file too large or too big in pixels, or a model that takes no images at all.
// The runner needs to know, because that failure is answered by leaving the image out of
// context and asking once more, not by stopping (a session must never be bricked by one
// image). Every wording below was seen from a real server; image_errors_test.go holds the
// full answers.
var imagePhrases = []string{
	"invalid image",                          // OpenAI "Invalid image." and gateways
	"unsupported image",                      // OpenAI "You uploaded an unsupported image. ..."
	"image_url is only supported by certain", // OpenAI, a text-only model
	"unknown variant `image_url`",            // DeepSeek: content parts of type image_url
	"does not support image",                 // "this model does not support image input" (GLM and gateways)
	"doesn't support the image",              // Bedrock "This model doesn't support the image field"
	"support image input",                    // OpenRouter "No endpoints found that support image input"
	"could not process image",                // Anthropic
	"image exceeds",                          // Anthropic "image exceeds 5 MB maximum"
	"image dimensions exceed",                // Anthropic "At least one of the image dimensions exceed max allowed size"
	"image.source",                           // Anthropic: any refusal pointing at an image block's source
	"failed to load image",                   // vLLM, llama.cpp
	"image input is not supported",           // llama.cpp without a multimodal projector
	"multimodal is not supported",            // Ollama/llama.cpp wording
	"does not appear to be a valid",          // Anthropic "... but does not appear to be a valid png image"
}

var imageCodes = []string{"invalid_image", "invalid_image_format", "image_parse_error", "invalid_image_url", "image_too_large"}

// textOnlyPhrases are the refusals that mean the model takes no image at all, rather than
// that one image is bad.
var textOnlyPhrases = []string{
	"image_url is only supported by certain", "unknown variant `image_url`", "does not support image",
	"doesn't support the image", "support image input", "image input is not supported", "multimodal is not supported",
}

// isImageRejection reports whether a server's error code and message mean the request was
// refused because of an image in it.
func isImageRejection(code, message string) bool {
	return says(code, message, imageCodes, imagePhrases)
}

// ImageRejected reports whether err (a Response.Err) says the server refused the request
// because of an image it carried. The runner leaves images out and retries once on it.
func ImageRejected(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindImageRejected
}

// RefusesAllImages reports whether an image refusal says the model takes no images at all
// (so every image of the request, not just the newest, must be left out).
func RefusesAllImages(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindImageRejected {
		return false
	}
	m := strings.ToLower(e.Message)
	for _, p := range textOnlyPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}
