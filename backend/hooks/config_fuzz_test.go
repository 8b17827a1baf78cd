package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzHooksSettings feeds arbitrary bytes as a folder's .claude/settings.json (Claude Code's
// format) and as the person's own Claude Code settings to import. Every hook it yields runs a
// command of a known event within a positive timeout under a matcher that compiles; reading
// the same file twice gives the same hooks and the same hash (trust is recorded against it);
// an import that succeeds brings every command hook of the file into the personal hooks.json,
// which then loads without an error.
func FuzzHooksSettings(f *testing.F) {
	for _, s := range []string{
		`{"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "echo pre", "timeout": 5}]},
		  {"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": "echo mcp", "onFailure": "ignore"}]}]}}`,
		`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "echo bye"}]}],
		  "Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}, {"type": "command", "command": "echo ok"}]}]}}`,
		`{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true", "timeout": 0.5}]}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}}`,
		`{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}`,
		`{"hooks": {"PreToolUse": [`,
		`{"model": "opus"}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir() // one per worker process; each input writes over the last
	home, folder, personal := filepath.Join(dir, "home"), filepath.Join(dir, "folder"), filepath.Join(dir, "personal")
	for _, d := range []string{filepath.Join(home, ".claude"), filepath.Join(folder, ".claude"), personal} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range []string{home, folder} {
			if err := os.WriteFile(filepath.Join(d, ClaudeSettingFile), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(filepath.Join(personal, PersonalFile)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		c, errs := Load("", folder)
		again, errs2 := Load("", folder)
		if !reflect.DeepEqual(c, again) || fmt.Sprint(errs) != fmt.Sprint(errs2) {
			t.Fatalf("the same file read twice differs: %+v / %+v", c, again)
		}
		if (c.SHA256 == "") != (len(c.Hooks) == 0) {
			t.Fatalf("hash %q for %d hooks", c.SHA256, len(c.Hooks))
		}
		for _, h := range c.Hooks {
			checkHook(t, h)
		}
		if _, err := ImportClaudeCode(home, personal); err != nil {
			return
		}
		imported, errs := Load(personal, "")
		for _, err := range errs {
			if !strings.Contains(err.Error(), "skipped") {
				t.Fatalf("the imported hooks.json does not load: %v", err)
			}
		}
		for _, h := range c.Hooks {
			if !hasHook(imported.Hooks, h) {
				t.Fatalf("hook %+v of the file was not imported: %+v", h, imported.Hooks)
			}
		}
	})
}

func checkHook(t *testing.T, h Hook) {
	t.Helper()
	_, err := compileMatcher(h.Matcher)
	if eventOrder(h.Event) == len(Events) || strings.TrimSpace(h.Command) == "" || h.Timeout <= 0 || err != nil {
		t.Fatalf("a hook that cannot run as configured: %+v (matcher: %v)", h, err)
	}
}

// hasHook reports whether hooks hold one doing what h does, wherever it was configured.
func hasHook(hooks []Hook, h Hook) bool {
	for _, x := range hooks {
		if x.Event == h.Event && x.Matcher == h.Matcher && x.Command == h.Command && x.Timeout == h.Timeout && x.IgnoreFailure == h.IgnoreFailure {
			return true
		}
	}
	return false
}
