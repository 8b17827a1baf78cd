package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopdesk/loopdesk/backend/hooks"
)

// Has answers what Fire would find: a configured event yes, another event no, untrusted
// project hooks no, and an unreadable configuration yes (Fire must run to report it).
func TestHasSaysWhetherAnEventHasHooks(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if f.engine.Has(ctx, f.folder, hooks.Stop) {
		t.Fatal("no configuration: Has(Stop) is true")
	}
	f.personalHooks(hooksConfig("PreToolUse", "", cmd("true")))
	if f.engine.Has(ctx, f.folder, hooks.Stop) || !f.engine.Has(ctx, f.folder, hooks.PreToolUse) {
		t.Fatal("a PreToolUse hook: want Has(PreToolUse) only")
	}
	f.projectHooks(hooksConfig("Stop", "", cmd("true")))
	if f.engine.Has(ctx, f.folder, hooks.Stop) {
		t.Fatal("an untrusted project Stop hook counts")
	}
	if err := os.WriteFile(filepath.Join(f.personal, "hooks.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !f.engine.Has(ctx, f.folder, hooks.Stop) {
		t.Fatal("an unreadable configuration: Has must say fire")
	}
}
