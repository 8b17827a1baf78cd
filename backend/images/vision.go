package images

import "strings"

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
