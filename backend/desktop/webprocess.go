package desktop

import (
	"os"
	"sync"
)

// webProcessEnv is what the window's WebKit web process is started with.
//
// JSC_useJIT=false runs the page's script in JavaScriptCore's interpreter, without its
// JIT compilers. Chosen by measurement (scripts/bench-memory.sh, docs/benchmarks.md "JIT"):
// with the JIT the web process kept 32–45 MB more after a 2,000-row reply had streamed
// (compiled code and the compilers' memory, never given back) and idled about 15 MB higher;
// without it the window stayed within 1.06x of its size before the stream, and it painted as
// many frames while a reply streamed (224 against 224–239 of 240). The page is a React view
// whose heavy work (JSON parsing, layout, painting) is native code the JIT does not touch.
// Measure again before changing it.
var webProcessEnv = [][2]string{{"JSC_useJIT", "false"}}

// PrepareWebProcess puts webProcessEnv in the environment the web process inherits (WebKit
// starts it with the window's own environment when the page first loads), except a variable
// the person set themselves. The returned function takes them out again; call it once the
// page has loaded, so that no tool, hook or MCP server started later inherits them.
func PrepareWebProcess() (restore func()) {
	var set []string
	for _, kv := range webProcessEnv {
		if _, ok := os.LookupEnv(kv[0]); ok {
			continue
		}
		if os.Setenv(kv[0], kv[1]) == nil {
			set = append(set, kv[0])
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, k := range set {
				_ = os.Unsetenv(k)
			}
		})
	}
}
