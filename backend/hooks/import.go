package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ImportClaudeCode copies the hooks of the person's own Claude Code settings
// (<home>/.claude/settings.json) into the personal hooks.json of personalDir, the one explicit
// way those hooks reach Loopdesk (they are never read in place). A hook already there (same
// event, matcher and command) is not added twice. It returns how many hooks were added; the
// file is written only when that is more than zero, through a temporary file renamed over it.
func ImportClaudeCode(home, personalDir string) (int, error) {
	src := filepath.Join(home, ".claude", "settings.json")
	raw, err := readHooks(src, true)
	if err != nil {
		return 0, err
	}
	if raw == nil {
		return 0, fmt.Errorf("import hooks: %s has no hooks", src)
	}
	if _, _, err := parse(raw, Personal, src); err != nil {
		return 0, fmt.Errorf("import hooks: %w", err)
	}
	var from map[Event][]group
	if err := json.Unmarshal(raw, &from); err != nil {
		return 0, fmt.Errorf("import hooks from %s: %w", src, err)
	}
	dst := filepath.Join(personalDir, PersonalFile)
	into := map[Event][]group{}
	b, err := os.ReadFile(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return 0, fmt.Errorf("import hooks: %w", err)
	default:
		var f file
		if err := json.Unmarshal(b, &f); err != nil {
			return 0, fmt.Errorf("import hooks: %s is not valid: %w", dst, err)
		}
		if f.Hooks != nil {
			into = f.Hooks
		}
	}
	added := merge(into, from)
	if added == 0 {
		return 0, nil
	}
	return added, writeJSON(dst, file{Hooks: into})
}

// merge adds to into every hook of from it lacks (by event, matcher and command).
func merge(into, from map[Event][]group) int {
	added := 0
	for ev, groups := range from {
		for _, g := range groups {
			for _, c := range g.Hooks {
				if has(into[ev], g.Matcher, c.Command) {
					continue
				}
				into[ev] = appendHook(into[ev], g.Matcher, c)
				added++
			}
		}
	}
	return added
}

func has(groups []group, matcher, command string) bool {
	for _, g := range groups {
		for _, c := range g.Hooks {
			if g.Matcher == matcher && c.Command == command {
				return true
			}
		}
	}
	return false
}

func appendHook(groups []group, matcher string, c command) []group {
	for i := range groups {
		if groups[i].Matcher == matcher {
			groups[i].Hooks = append(groups[i].Hooks, c)
			return groups
		}
	}
	return append(groups, group{Matcher: matcher, Hooks: []command{c}})
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("import hooks: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hooks-*.json")
	if err != nil {
		return fmt.Errorf("import hooks: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing left to remove
	if _, err := tmp.Write(append(b, '\n')); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("import hooks into %s: %w", path, err)
	}
	return nil
}
