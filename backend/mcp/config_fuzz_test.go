package mcp

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// FuzzMCPConfig feeds arbitrary bytes to mcp.json's parser (the format Claude Desktop, Claude
// Code and Cursor write). A file it accepts is valid, saves, and reads back the same.
func FuzzMCPConfig(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"TOKEN": "${GITHUB_TOKEN}"}}}}`,
		`{"mcpServers": {"remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN:-none}"}, "timeout_s": 30, "trusted": true}}}`,
		`{"mcpServers": {"old": {"type": "sse", "url": "http://localhost:3000/sse", "disabled": true}}}`,
		`{"globalShortcut": "", "mcpServers": {"a": {"command": "a", "cwd": "/srv"}}}`,
		`{"mcpServers": {"bad": {"type": "websocket", "url": "ws://x"}}}`,
		`{"mcpServers": {"t": {"command": "x", "timeout_s": -1}}}`,
		`{"mcpServers": {" ": {"command": "x"}}}`,
		`{"mcpServers": {"x": {"command": 7}}}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir() // one per worker process; each input saves over the last
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseConfig(data)
		if err != nil {
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("accepted an invalid file: %v", err)
		}
		saved := filepath.Join(dir, "saved.json")
		if err := Save(saved, got); err != nil {
			t.Fatalf("an accepted file does not save: %v", err)
		}
		again, err := Load(saved)
		if err != nil {
			t.Fatalf("a saved file does not read back: %v", err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("read %s, saved and read back %s", a, b)
		}
	})
}
