package desktop

import (
	"os"
	"sync"
)

// webProcessEnv is what the window's WebKit web process is started with.
//
// JSC_useJIT=false runs the page's script in JavaScriptCore's interpreter, without its
// JIT compilers. Chosen by measurement (docs/benchmarks.md, "The page without the JIT"):
// with the JIT the web process kept 30-45 MB more after a 2,000-row reply had streamed
// (compiled code and the compilers' memory, never given back; the window measured 1.11-1.13x
// its size before the stream, 1.06x without) and idled 10-16 MB higher; while a reply
// streamed it painted as many frames (224-230 of 240 against 224-239), and the 2,203-row
// stream was shown as fast (3.0-4.0 s against 4.2-6.6 s). First paint moved within the
// machine's noise (four runs each: about 650 ms with the JIT, 700 ms without). Not measured
// in WebKit: opening a 10,000-row session. A person who sets JSC_useJIT keeps their value;
// measure again before changing this.
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
