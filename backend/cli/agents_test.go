package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// `agents list --json` prints one object per definition with exactly the documented keys,
// invalid files with their path and reason.
func TestAgentsListJSON(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	put := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(ws, ".claude/agents/tester.md"), "---\nname: tester\ndescription: Runs tests\ntools: Read, Bash\n---\nTest.\n")
	put(filepath.Join(cfg, "loopdesk/agents/broken.md"), "---\nname: broken\n---\n")
	var out, errb bytes.Buffer
	if code := Main([]string{"agents", "list", "--json", "--workspace", ws}, nil, nil, &out, &errb).Code; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want tester, broken, explore:\n%s", out.String())
	}
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, []string{"description", "error", "model", "name", "source", "tools"}) {
			t.Fatalf("keys %v", keys)
		}
		got = append(got, m)
	}
	if got[0]["name"] != "tester" || got[0]["error"] != "" || !reflect.DeepEqual(got[0]["tools"], []any{"read_file", "run_shell_command"}) ||
		got[0]["source"] != filepath.Join(ws, ".claude/agents/tester.md") || got[0]["model"] != "inherit" {
		t.Fatalf("tester: %v", got[0])
	}
	if got[1]["source"] != filepath.Join(cfg, "loopdesk/agents/broken.md") || !strings.Contains(got[1]["error"].(string), "description is required") {
		t.Fatalf("broken: %v", got[1])
	}
	if got[2]["name"] != "explore" || got[2]["source"] != "builtin" {
		t.Fatalf("explore: %v", got[2])
	}
	out.Reset()
	if code := Main([]string{"agents", "list", "--workspace", ws}, nil, nil, &out, &errb).Code; code != 0 || !strings.Contains(out.String(), "invalid: description is required") {
		t.Fatalf("text listing (exit %d):\n%s", code, out.String())
	}
	if code := Main([]string{"agents", "show"}, nil, nil, &out, &errb).Code; code != ExitUsage {
		t.Fatalf("unknown subcommand: exit %d", code)
	}
}
