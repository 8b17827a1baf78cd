package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// The command line (and ACP, which it serves) builds the same stack as the window and
// resolves the same configuration (backend/config), without the window's services: nothing
// of backend/desktop — or of Wails — is linked into what `loopdesk run` needs.
func TestCLIImportsNothingFromTheWindow(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "desktop,production,webkit2_41,sqlite_fts5", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/loopdesk/loopdesk/backend/stack") {
		t.Fatalf("go list -deps listed too little to prove anything:\n%s", out)
	}
	for _, d := range deps {
		if d == "github.com/loopdesk/loopdesk/backend/desktop" || strings.HasPrefix(d, "github.com/wailsapp/") {
			t.Errorf("backend/cli depends on %s", d)
		}
	}
}
