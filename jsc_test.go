package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The web process starts with the page's JavaScriptCore options, and nothing the app starts
// after the page has loaded (a tool's command, an MCP server, a hook) inherits them; a
// person's own setting wins and stays theirs.
func TestThePagesJSCOptionsReachOnlyTheWebProcess(t *testing.T) {
	for _, o := range pageJSCOptions {
		t.Setenv(o[0], "")
		os.Unsetenv(o[0])
	}
	childSees := func(name string) string {
		out, err := exec.Command("sh", "-c", "printf %s \"${"+name+"-unset}\"").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	loaded := setPageJSCOptions()
	for _, o := range pageJSCOptions {
		if got := childSees(o[0]); got != o[1] {
			t.Fatalf("a process started before the page loaded sees %s=%q, want %q", o[0], got, o[1])
		}
	}
	loaded()
	for _, o := range pageJSCOptions {
		if got := childSees(o[0]); got != "unset" {
			t.Fatalf("a process started after the page loaded sees %s=%q, want it unset", o[0], got)
		}
	}

	t.Setenv("JSC_useGenerationalGC", "true") // the person's choice for one of them
	loaded = setPageJSCOptions()
	if got := childSees("JSC_useDFGJIT"); got != "false" {
		t.Fatalf("JSC_useDFGJIT=%q beside the person's other option, want false", got)
	}
	loaded()
	if got := childSees("JSC_useGenerationalGC"); got != "true" {
		t.Fatalf("the person's JSC_useGenerationalGC=true became %q", got)
	}
	if got := childSees("JSC_useDFGJIT"); got != "unset" {
		t.Fatalf("JSC_useDFGJIT stayed %q after the page loaded", got)
	}
}
