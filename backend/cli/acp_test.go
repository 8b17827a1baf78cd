package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// `loopdesk acp` refuses bad flags and a missing model before reading stdin, and never writes
// anything but JSON-RPC to stdout (here: nothing at all).
func TestACPCommandErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("LOOPDESK_MODEL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	db := filepath.Join(t.TempDir(), "l.db")
	cases := []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"--approve", "sometimes"}, ExitUsage, `--approve "sometimes"`},
		{[]string{"--sandbox", "maybe"}, ExitUsage, "sandbox"},
		{[]string{"--db", db, "stray"}, ExitUsage, `unexpected argument "stray"`},
		{[]string{"--max-turns", "-1"}, ExitUsage, "cannot be negative"},
		{[]string{"--help"}, ExitUsage, "usage: loopdesk acp"},
		{[]string{"--db", db}, ExitOther, "no model"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := ACP(context.Background(), c.args, strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.say) || out.Len() != 0 {
			t.Errorf("acp %q: exit %d, stdout %q, stderr %q; want exit %d saying %q", c.args, code, out.String(), errb.String(), c.code, c.say)
		}
	}
}
