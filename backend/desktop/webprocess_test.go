package desktop

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The web process starts without JavaScriptCore's JIT, a child started after the page has
// loaded (a tool, a hook, an MCP server) does not inherit that setting, and a value the
// person set is theirs: neither replaced nor removed.
func TestWebProcessEnvReachesOnlyTheWebProcess(t *testing.T) {
	t.Setenv("JSC_useJIT", "")
	os.Unsetenv("JSC_useJIT")
	restore := PrepareWebProcess()
	if got := childEnv(t, "JSC_useJIT"); got != "false" {
		t.Fatalf("a process started before the page loaded got JSC_useJIT=%q, want false", got)
	}
	restore()
	restore() // twice is harmless
	if got := childEnv(t, "JSC_useJIT"); got != "" {
		t.Fatalf("a process started after the page loaded inherited JSC_useJIT=%q", got)
	}

	t.Setenv("JSC_useJIT", "true")
	PrepareWebProcess()()
	if got := childEnv(t, "JSC_useJIT"); got != "true" {
		t.Fatalf("the person's JSC_useJIT=true became %q", got)
	}
}

// childEnv is the value a newly started process sees for name ("" when unset).
func childEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `printf %s "${`+name+`-}"`).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
