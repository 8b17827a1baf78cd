package core

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ioPackages do I/O, read the clock's randomness or reach outside the process: the core
// imports none of them. (The standard library's own closure reaches os and syscall through
// fmt; what counts is what the core itself imports, checked against pure below.)
var ioPackages = []string{
	"os", "os/exec", "os/signal", "os/user", "io/fs", "io/ioutil", "syscall", "unsafe",
	"net", "net/http", "net/url", "database/sql", "path/filepath", "log", "log/slog",
	"crypto/rand", "math/rand", "math/rand/v2", "runtime", "plugin", "embed", "context",
}

// pure are the packages the core may import: values, text and time as a value type. time
// is here for time.Time and time.Duration; reading the clock is refused by the source check.
var pure = map[string]bool{
	"bytes": true, "encoding/json": true, "errors": true, "fmt": true, "maps": true,
	"slices": true, "strings": true, "time": true, "unicode/utf8": true,
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, stderr)
	}
	return strings.Fields(string(out))
}

// TestCoreImportsOnlyPurePackages lists the core's dependencies with go list: its own
// imports must be pure (never an I/O package), and nothing it reaches, directly or not, may
// be a Loopdesk package or anything outside the standard library.
func TestCoreImportsOnlyPurePackages(t *testing.T) {
	io := map[string]bool{}
	for _, p := range ioPackages {
		io[p] = true
	}
	for _, p := range goList(t, "-f", `{{join .Imports "\n"}}`, ".") {
		switch {
		case io[p]:
			t.Errorf("the core imports %s, which does I/O: time and ids arrive on inputs, effects leave as values", p)
		case !pure[p]:
			t.Errorf("the core imports %s, which is not in the list of pure packages", p)
		}
	}
	deps := goList(t, "-deps", "-f", `{{.ImportPath}}:{{.Standard}}`, ".")
	if len(deps) < len(pure) {
		t.Fatalf("go list -deps found only %v", deps)
	}
	for _, d := range deps {
		path, std, _ := strings.Cut(d, ":")
		switch {
		case strings.HasPrefix(path, "github.com/loopdesk/") && path != "github.com/loopdesk/loopdesk/backend/loop/core":
			t.Errorf("the core depends on %s: it imports no other Loopdesk package", path)
		case std != "true" && !strings.HasPrefix(path, "github.com/loopdesk/"):
			t.Errorf("the core depends on %s, outside the standard library", path)
		}
	}
}

// TestCoreReadsNoClock: time and ids arrive on inputs; the core never makes them.
func TestCoreReadsNoClock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, clock := range []string{"time.Now(", "time.Since(", "time.Until(", "time.After(", "time.Tick(", "time.NewTimer(", "rand."} {
			if strings.Contains(string(src), clock) {
				t.Errorf("%s uses %s: time and ids must arrive on inputs", f, clock)
			}
		}
	}
	if n < 6 {
		t.Fatalf("found %d core files", n)
	}
}
