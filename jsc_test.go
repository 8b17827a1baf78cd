package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The web process starts without the DFG tier, and nothing the app starts after the page has
// loaded (a tool's command, an MCP server, a hook) inherits the option; a person's own
// setting wins and stays theirs.
func TestThePagesJITOptionReachesOnlyTheWebProcess(t *testing.T) {
	t.Setenv(pageJITEnv, "")
	os.Unsetenv(pageJITEnv)
	childSees := func() string {
		out, err := exec.Command("sh", "-c", "printf %s \"${"+pageJITEnv+"-unset}\"").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	loaded := limitPageJIT()
	if got := childSees(); got != "false" {
		t.Fatalf("a process started before the page loaded sees %s=%q, want false", pageJITEnv, got)
	}
	loaded()
	if got := childSees(); got != "unset" {
		t.Fatalf("a process started after the page loaded sees %s=%q, want it unset", pageJITEnv, got)
	}

	t.Setenv(pageJITEnv, "true") // the person's choice
	loaded = limitPageJIT()
	loaded()
	if got := childSees(); got != "true" {
		t.Fatalf("the person's %s=true became %q", pageJITEnv, got)
	}
}
