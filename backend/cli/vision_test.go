package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The per-model vision setting the window saves: kept for on/off, auto dropped, bad entries
// refused with nothing saved, listed by `loopdesk settings --json`, and what a run resolves.
func TestVisionSettingIsSavedListedAndResolved(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st := desktop.SettingsStore{DB: db, Keys: config.Keys{Dir: filepath.Join(cfg, "loopdesk")}, Getenv: func(string) string { return "" }}
	in := desktop.SettingsInput{BaseURL: "http://localhost:11434/v1", Model: "qwen3", Vision: []desktop.ModelVision{
		{Model: "qwen3", Vision: "on"}, {Provider: "local", Model: "gpt-4o", Vision: "off"}, {Model: "llava", Vision: "auto"}}}
	for _, bad := range [][]desktop.ModelVision{
		{{Model: "qwen3", Vision: "maybe"}},
		{{Model: "", Vision: "on"}},
		{{Model: "m", Vision: "on"}, {Provider: "default", Model: "m", Vision: "off"}},
	} {
		b := in
		b.Vision = bad
		if _, err := st.Save(ctx, b); err == nil {
			t.Fatalf("%+v was saved", bad)
		}
	}
	saved, err := st.Save(ctx, in)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := []desktop.ModelVision{{Provider: "default", Model: "qwen3", Vision: "on"}, {Provider: "local", Model: "gpt-4o", Vision: "off"}}
	if len(saved.Vision) != 2 || saved.Vision[0] != want[0] || saved.Vision[1] != want[1] {
		t.Fatalf("saved %+v", saved.Vision)
	}
	for _, c := range []struct {
		provider, model string
		want            images.Vision
		sees            bool
	}{{"", "qwen3", images.VisionOn, true}, {"local", "gpt-4o", images.VisionOff, false}, {"default", "gpt-4o", images.VisionAuto, true},
		{"default", "deepseek-chat", images.VisionAuto, false}} {
		if got := saved.VisionOf(c.provider, c.model); got != c.want || saved.SeesImages(c.provider, c.model) != c.sees {
			t.Errorf("%s/%s: %q sees %v", c.provider, c.model, got, saved.SeesImages(c.provider, c.model))
		}
	}
	var out, errb bytes.Buffer
	if code := SettingsCommand(ctx, []string{"--json", "--db", path}, func(string) string { return "" }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var row struct {
			Setting, Source string
			Value           []desktop.ModelVision
		}
		if json.Unmarshal([]byte(line), &row) == nil && row.Setting == "vision" {
			if row.Source != "saved" || len(row.Value) != 2 || row.Value[1] != want[1] {
				t.Fatalf("vision row %s", line)
			}
			return
		}
	}
	t.Fatalf("no vision row:\n%s", out.String())
}
