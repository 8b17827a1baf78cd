package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/acp"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

const fuzzKey = "sk-acp-fuzz-secret"

// FuzzACPMessages feeds arbitrary bytes to the agent as an editor's stdin, over a real stack,
// database and scripted model. Whatever comes in, the agent returns when stdin closes (never
// hangs); everything it writes is a JSON-RPC 2.0 object on a line of its own; every line that
// is not JSON is answered with exactly one parse error; no answer carries an id the editor did
// not send; the API key never reaches the editor.
func FuzzACPMessages(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"`,
		`not json at all`,
		`[{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}]`,
		`{"jsonrpc":"2.0","id":3}`,
		`{"jsonrpc":"2.0","id":4,"method":7}`,
		`{"jsonrpc":"2.0","id":5,"method":"no/such_method","params":{}}`,
		`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
			`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\n" +
			`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"session/load","params":{"sessionId":"x","cwd":"/tmp","mcpServers":[]}}` + "\r\n\r\n{}",
	} {
		f.Add([]byte(s))
	}
	st := fuzzStack(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		out := serveFuzzed(t, st, data)
		sent := sentIDs(data)
		parseErrors := 0
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"` // "null" when sent as null
				Method  string          `json:"method"`
				Error   *struct{ Code int }
			}
			if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("wrote a line that is not a JSON-RPC 2.0 message: %q (%v)", line, err)
			}
			if m.Method != "" {
				continue // the agent's own notification or request
			}
			if m.ID == nil {
				t.Fatalf("an answer without an id: %s", line)
			}
			if id := compactJSON(m.ID); id != "null" && !sent[id] {
				t.Fatalf("an answer to id %s, which was never sent: %s", id, line)
			}
			if m.Error != nil && m.Error.Code == -32700 {
				parseErrors++
			}
		}
		if want := notJSONLines(data); parseErrors != want {
			t.Fatalf("%d parse errors for %d lines that are not JSON:\nin  %q\nout %s", parseErrors, want, data, out)
		}
		if bytes.Contains(out, []byte(fuzzKey)) {
			t.Fatalf("the API key reached the editor: %s", out)
		}
	})
}

// fuzzStack is one worker's stack: its own database, and a scripted model that echoes.
func fuzzStack(f *testing.F) *stack.Stack {
	srv, err := fakeai.Start(fakeai.WithAPIKey(fuzzKey))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	db, err := store.Open(context.Background(), filepath.Join(f.TempDir(), "loopdesk.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	st, err := stack.New(stack.Config{DB: db, Model: provider.New(provider.Config{BaseURL: srv.URL(), APIKey: fuzzKey, Model: "m", MaxRetries: -1}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(st.Close)
	return st
}

// serveFuzzed serves data as a whole stdin and returns stdout; Serve must return on its own
// once stdin ends.
func serveFuzzed(t *testing.T, st *stack.Stack, data []byte) []byte {
	spec := func(sessionID, workspace, prompt string) loop.RunSpec {
		return loop.RunSpec{SessionID: sessionID, Workspace: workspace, Prompt: prompt, Model: "m", Limits: core.Limits{MaxTurns: 1}}
	}
	done := make(chan error, 1)
	w := &syncBuffer{} // a cancelled prompt's goroutine may still be writing
	go func() {
		done <- acp.Serve(context.Background(), acp.Config{Stack: st, Spec: spec, Model: "m", Version: "fuzz",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, bytes.NewReader(data), w)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the agent did not return 20 s after its stdin ended: in %q", data)
	}
	return []byte(w.String())
}

// sentIDs are the ids of the messages in data, compacted.
func sentIDs(data []byte) map[string]bool {
	ids := map[string]bool{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &m) == nil && m.ID != nil {
			ids[compactJSON(m.ID)] = true
		}
	}
	return ids
}

// notJSONLines counts the lines of data that hold something and are not JSON.
func notJSONLines(data []byte) int {
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			n++
		}
	}
	return n
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return strings.TrimSpace(string(raw))
	}
	return b.String()
}
