package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Every subcommand Main dispatches is named where a person who typed something else, or has
// no display, is told what exists: the unknown-word error, the no-display message, the usage
// and docs/cli.md. A word in Commands that Main does not dispatch fails too.
func TestEveryCommandIsNamed(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	Main([]string{"frobnicate"}, func(k string) string { return map[string]string{"DISPLAY": ":0"}[k] }, nil, &out, &errb)
	unknown := errb.String()
	noDisplay := CheckDisplay(func(string) string { return "" }).Error()
	for _, c := range Commands {
		if !strings.Contains(unknown, c) {
			t.Errorf("the unknown-word error does not name %q: %s", c, unknown)
		}
		var o, e bytes.Buffer
		l := Main([]string{c, "--help"}, nil, nil, &o, &e)
		if strings.Contains(e.String(), "unknown command or folder") {
			t.Errorf("%q is listed but not dispatched (exit %d)", c, l.Code)
		}
		if c == "help" || c == "version" {
			continue
		}
		if !strings.Contains(noDisplay, c) {
			t.Errorf("the no-display message does not name %q: %s", c, noDisplay)
		}
		if !strings.Contains(Usage, "loopdesk "+c) || !strings.Contains(string(doc), "loopdesk "+c) {
			t.Errorf("the usage or docs/cli.md does not name %q", c)
		}
	}
}
