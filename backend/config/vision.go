package config

import (
	"github.com/loopdesk/loopdesk/backend/images"
)

// ModelVision is the person's choice of whether one provider's model is sent images (issue
// 20): "on" or "off". A model without an entry is "auto": the default from its name
// (images.SeesImages). Saved under SettingVision like the price and context-window tables.
type ModelVision struct {
	Provider string `json:"provider"` // "" is "default"
	Model    string `json:"model"`
	Vision   string `json:"vision"` // "on", "off" or "auto" (auto entries are not kept)
}

// visionOf is the saved entry for provider's model, else auto.
func visionOf(vs []ModelVision, provider, model string) images.Vision {
	if provider == "" {
		provider = DefaultProvider
	}
	for _, v := range vs {
		if v.Provider == provider && v.Model == model {
			return images.Vision(v.Vision)
		}
	}
	return images.VisionAuto
}
