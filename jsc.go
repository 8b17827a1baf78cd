package main

import "os"

// pageJITEnv is the JavaScriptCore option the window's web process starts with: its
// optimising DFG tier (and with it FTL) off, the interpreter and the baseline JIT on.
// JavaScriptCore reads JSC_* options from the environment of the WebKit web process,
// which inherits the window's.
//
// Chosen by measurement (docs/benchmarks.md, "The page's JIT tiers"): with every tier on,
// the web process keeps the code and heap it took while a long session streamed in
// (scripts/bench-memory.sh memory: the window 1.11 to 1.14x its memory before the stream,
// against 1.08 without DFG), while opening a 10,000-row session, its chunk table and a long
// markdown reply took the same time within the noise either way (scripts/bench-memory.sh speed).
const pageJITEnv = "JSC_useDFGJIT"

// limitPageJIT sets pageJITEnv for the web process about to start, unless the person set
// it (JSC_useDFGJIT=true gives the page every tier back). The returned func takes it out
// of the environment again once the page has loaded, so nothing the app starts later (a
// tool's command, an MCP server, a hook) inherits it.
func limitPageJIT() (done func()) {
	if _, set := os.LookupEnv(pageJITEnv); set {
		return func() {}
	}
	if err := os.Setenv(pageJITEnv, "false"); err != nil {
		return func() {}
	}
	return func() { _ = os.Unsetenv(pageJITEnv) }
}
