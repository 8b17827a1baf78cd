package desktop

import (
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/images"
)

// ModelVision is config's per-model vision choice, under the window's name.
type ModelVision = config.ModelVision

const keyVision = config.SettingVision

// VisionOf is the run's vision choice for provider's model: the saved entry, else auto.
func (s SavedSettings) VisionOf(provider, model string) images.Vision {
	return config.Resolved{Vision: s.Vision}.VisionOf(provider, model)
}

// SeesImages says whether provider's model is sent images under these settings.
func (s SavedSettings) SeesImages(provider, model string) bool {
	switch s.VisionOf(provider, model) {
	case images.VisionOn:
		return true
	case images.VisionOff:
		return false
	}
	return images.SeesImages(model)
}

// checkVision validates the vision table the settings screen saves: each entry names a
// model and says on, off or auto; auto entries are dropped (auto is no entry); two entries
// for one provider's model are refused.
func checkVision(in []ModelVision) ([]ModelVision, error) {
	out := []ModelVision{}
	seen := map[[2]string]bool{}
	for _, v := range in {
		v.Provider, v.Model = strings.TrimSpace(v.Provider), strings.TrimSpace(v.Model)
		if v.Provider == "" {
			v.Provider = config.DefaultProvider
		}
		switch {
		case v.Model == "":
			return nil, fmt.Errorf("every vision setting needs a model name")
		case v.Vision != "on" && v.Vision != "off" && v.Vision != "auto" && v.Vision != "":
			return nil, fmt.Errorf("the vision setting of %q is %q: want on, off or auto", v.Model, v.Vision)
		case seen[[2]string{v.Provider, v.Model}]:
			return nil, fmt.Errorf("two vision settings for model %q of provider %q", v.Model, v.Provider)
		}
		seen[[2]string{v.Provider, v.Model}] = true
		if v.Vision == "on" || v.Vision == "off" {
			out = append(out, v)
		}
	}
	return out, nil
}
