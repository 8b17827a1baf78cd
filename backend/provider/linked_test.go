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
// clients out of the binary"). Their SSE decoders (packages/ssestream) are light.
var sdkRoots = []string{
	"github.com/openai/openai-go/v3",
	"github.com/anthropics/anthropic-sdk-go/v2",
}

// The window's binary, built as the Makefile builds it, links neither SDK's client package:
// the adapters send with net/http (request.go) and decode with the SDKs' SSE decoders.
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
	// What proves the list is the whole binary's: the window and both decoders are in it.
	for _, p := range []string{"github.com/wailsapp/wails/v2", "github.com/openai/openai-go/v3/packages/ssestream",
		"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"} {
		if !has(p) {
			t.Fatalf("go list -deps does not list %s; it cannot prove anything:\n%s", p, out)
		}
	}
	for _, p := range sdkRoots {
		if has(p) {
			t.Errorf("the binary links %s (keep to its packages/ssestream; see sdkRoots)", p)
		}
	}
}
