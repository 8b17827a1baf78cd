package main

import "os"

// pageJSCOptions are the JavaScriptCore options the window's web process starts with.
// JavaScriptCore reads JSC_* options from the environment of the WebKit web process, which
// inherits the window's. Each was chosen by measurement in the real window
// (scripts/bench-memory.sh; docs/benchmarks.md):
//
//   - JSC_useDFGJIT=false: the optimising DFG tier (and FTL above it) off; the interpreter
//     and the baseline JIT stay. With every tier on, the web process kept the code and heap
//     it took while a long session streamed in (the window 1.11 to 1.14x its memory before
//     the stream, against 1.08 without DFG), while opening a 10,000-row session, its chunk
//     table and a long markdown reply took the same time within the noise either way ("The
//     page's JIT tiers").
//   - JSC_useGenerationalGC=false: every collection is a full one. With the generational
//     collector, only eden collections ran during and after a long stream, so what the
//     stream promoted to the old generation stayed until a full collection that an idle
//     page never triggered: 19.6 MB of JavaScript heap left where 6.5 MB were live before,
//     and the window 1.10-1.12x its memory before the stream; with full collections
//     1.067-1.074x, a second long session adding 0.3-1.2 %, and the same frames while a reply
//     streams ("Every collection a full one").
var pageJSCOptions = [][2]string{
	{"JSC_useDFGJIT", "false"},
	{"JSC_useGenerationalGC", "false"},
}

// setPageJSCOptions sets pageJSCOptions for the web process about to start, each unless the
// person set it (JSC_useDFGJIT=true gives the page every JIT tier back, and
// JSC_useGenerationalGC=true the generational collector). The returned func takes them out
// of the environment again once the page has loaded, so nothing the app starts later (a
// tool's command, an MCP server, a hook) inherits them.
func setPageJSCOptions() (done func()) {
	var set []string
	for _, o := range pageJSCOptions {
		if _, ok := os.LookupEnv(o[0]); ok {
			continue
		}
		if os.Setenv(o[0], o[1]) == nil {
			set = append(set, o[0])
		}
	}
	return func() {
		for _, name := range set {
			_ = os.Unsetenv(name)
		}
	}
}
