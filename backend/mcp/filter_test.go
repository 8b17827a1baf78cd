package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestStdoutFilter(t *testing.T) {
	in := strings.Join([]string{
		`Server v1.2 starting`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[INFO] listening`,
		`{level: debug}`,
		``,
		`  {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`{ "jsonrpc":"2.0","id":3,"result":{"big":"` + strings.Repeat("x", 200000) + `"}}`,
	}, "\n") + "\n"
	var log bytes.Buffer
	f := newStdoutFilter(io.NopCloser(strings.NewReader(in)), &log)
	out, err := io.ReadAll(iotest{f})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":1`) || !strings.HasPrefix(lines[2], `[{`) || len(lines[3]) < 200000 {
		t.Fatalf("passed %d lines: %.200q", len(lines), out)
	}
	for _, junk := range []string{"Server v1.2 starting", "[INFO] listening", "{level: debug}"} {
		if !strings.Contains(log.String(), "stdout (not JSON-RPC, ignored): "+junk) {
			t.Errorf("log lacks %q:\n%s", junk, log.String())
		}
	}
}

// iotest reads through small buffers, as a decoder may.
type iotest struct{ r io.Reader }

func (t iotest) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), 7)]) }
