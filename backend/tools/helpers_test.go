package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// newWS opens a workspace on a fresh temp folder and releases it after the test.
func newWS(t *testing.T) *Workspace {
	t.Helper()
	ws, err := NewManager().Acquire(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Release)
	return ws
}

func builtinRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := NewRegistry(Builtins()...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run calls a tool through the registry with arguments marshalled from args.
func run(t *testing.T, ws *Workspace, name string, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return builtinRegistry(t).Run(context.Background(), ws, Call{ID: "c1", Name: name, Arguments: string(raw)}, nil)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type m = map[string]any
