package provider

import (
	"os/exec"
	"strings"
	"testing"
)

// sdkRoots are the SDKs' client packages. Their package inits register every type of the
// API with reflection, and Wails' bindings call reflect's Method, so the linker keeps every
// exported method of all of them: linked, they were 29 of the window binary's 49 MB, and a
// binary's page cache is mapped in whole large folios, so they kept 8.5 MB more of it
// resident in an idle window and its start 50 ms later (docs/benchmarks.md, "The SDKs'
// clients out of the binary"). The adapters send with net/http and frame the stream
// themselves (exchange.go), so neither SDK is a dependency at all.
var sdkRoots = []string{
	"github.com/openai/openai-go/v3",
	"github.com/anthropics/anthropic-sdk-go/v2",
}

// The window's binary, built as the Makefile builds it, links no package of either SDK: the
// adapters send with net/http (request.go) and read server-sent events themselves
// (exchange.go).
func TestTheBinaryLinksNoSDKClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "desktop,production,webkit2_41,sqlite_fts5", "-deps", "../..").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	has := func(p string) bool {
		for _, d := range deps {
			if d == p {
				return true
			}
		}
		return false
	}
	// What proves the list is the whole binary's: the window and the adapters are in it.
	for _, p := range []string{"github.com/wailsapp/wails/v2", "github.com/loopdesk/loopdesk/backend/provider"} {
		if !has(p) {
			t.Fatalf("go list -deps does not list %s; it cannot prove anything:\n%s", p, out)
		}
	}
	for _, d := range deps {
		for _, root := range sdkRoots {
			if d == root || strings.HasPrefix(d, root+"/") {
				t.Errorf("the binary links %s (see sdkRoots)", d)
			}
		}
	}
}
