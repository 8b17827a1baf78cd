package images

import (
	"fmt"
	"strings"
)

// textOnly are name parts of well-known models that take no images. A model not named here
// is taken to see images (most current chat models do); the person can say otherwise per
// model in Settings once that setting exists.
var textOnly = []string{
	"gpt-3.5", "o1-mini", "o3-mini", "deepseek-chat", "deepseek-reasoner", "deepseek-coder", "deepseek-v",
	"qwen2.5-coder", "qwen3-coder", "codestral", "mistral-small-3.0", "llama-3.1", "llama-3.3", "llama3",
	"phi-3", "phi-4-mini", "text-", "embedding", "whisper", "tts",
}

// SeesImages is the default of a model's vision setting, from its name: false for models
// known to be text-only.
func SeesImages(model string) bool {
	m := strings.ToLower(model)
	if strings.Contains(m, "vision") || strings.Contains(m, "-vl") || strings.Contains(m, "vl-") {
		return true
	}
	for _, t := range textOnly {
		if strings.Contains(m, t) {
			return false
		}
	}
	return true
}

// Vision is a run's choice of whether its model is sent images: VisionAuto (the default from
// the model's name, SeesImages), VisionOn or VisionOff (the person's per-model setting).
type Vision string

const (
	VisionAuto Vision = ""
	VisionOn   Vision = "on"
	VisionOff  Vision = "off"
)

// TextOnly says why model is sent no images under this vision choice, "" when it is sent
// them. The runner leaves images out of requests exactly when it is not ""; a front end that
// attached images says so with it (RunSpec.ImagesDropped), never silently.
func (v Vision) TextOnly(model string) string {
	const kept = ": the image is kept in the session but not sent"
	switch {
	case v == VisionOn:
		return ""
	case v == VisionOff:
		return fmt.Sprintf("vision is off for model %s (Settings → Images)%s", model, kept)
	case !SeesImages(model):
		return fmt.Sprintf("model %s is text-only by its name (turn vision on for it in Settings → Images if it sees images)%s", model, kept)
	}
	return ""
}
