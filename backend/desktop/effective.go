package desktop

import (
	"encoding/json"
	"errors"

	"github.com/loopdesk/loopdesk/backend/config"
)

// EffectiveRow is one setting in force, as `loopdesk settings --json` prints it: the value,
// and where it came from (default, saved, env) with the variable or file that gave it.
type EffectiveRow struct {
	Setting string          `json:"setting"`
	Value   json.RawMessage `json:"value"`
	Source  string          `json:"source"`
	Detail  string          `json:"detail"`
}

// EffectiveView is Settings → "In effect": what the next run uses and why, read by the same
// function as `loopdesk settings` (config.Effective, config.Rows) over the same database and
// environment. Error is why the settings cannot be used (then Rows is empty), in the words
// the command line exits 2 with.
type EffectiveView struct {
	Rows  []EffectiveRow `json:"rows"`
	Error string         `json:"error"`
}

// EffectiveSettings is what the next run started from the window uses, and where each value
// comes from. A saved value that cannot be used is the view's Error, not a failure.
func (h *Settings) EffectiveSettings() (EffectiveView, error) {
	v := EffectiveView{Rows: []EffectiveRow{}}
	ps, err := h.c.settings.Providers(h.c.context())
	var bad *config.SettingError
	if errors.As(err, &bad) {
		v.Error = err.Error()
		return v, nil
	}
	if err != nil {
		return v, err
	}
	r, srcs, err := h.c.settings.Effective(h.c.context())
	if err != nil {
		return v, err
	}
	for _, row := range config.Rows(r, srcs, ps) {
		b, err := json.Marshal(row)
		if err != nil {
			return v, err
		}
		var e EffectiveRow
		if err := json.Unmarshal(b, &e); err != nil {
			return v, err
		}
		v.Rows = append(v.Rows, e)
	}
	return v, nil
}
