package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzToolArguments feeds arbitrary arguments to every built-in tool through the registry, the
// way a model's call reaches it. Arguments the schema accepts always decode; no call panics;
// no call reads, lists or changes anything outside the workspace, whatever its paths, globs
// or symlinks inside the workspace that lead out. The shell tool's arguments are only decoded:
// what a command does is the sandbox's to confine (backend/sandbox's own tests).
func FuzzToolArguments(f *testing.F) {
	seeds := []struct {
		tool uint8
		args string
	}{
		{0, `{"path":"a.txt"}`}, {0, `{"path":"a.txt","offset":2,"limit":1}`}, {0, `{"path":"../outside/secret.txt"}`},
		{0, `{"path":"link/secret.txt"}`}, {0, `{"path":"abslink"}`}, {0, `{"path":"/etc/passwd"}`},
		{1, `{}`}, {1, `{"path":"link"}`}, {1, `{"path":"sub/.."}`},
		{2, `{"pattern":"**/*.go"}`}, {2, `{"pattern":"**","path":".."}`}, {2, `{"pattern":"*","path":"link"}`},
		{3, `{"pattern":"hello","glob":"*.txt"}`}, {3, `{"pattern":".","path":"link"}`}, {3, `{"pattern":"(","max_matches":5}`},
		{4, `{"path":"new/deep/c.txt","content":"x"}`}, {4, `{"path":"link/new.txt","content":"x"}`}, {4, `{"path":"abslink","content":"x"}`},
		{5, `{"path":"a.txt","old_string":"hello","new_string":"bye"}`}, {5, `{"path":"link/secret.txt","old_string":"s","new_string":"t"}`},
		{6, `{"command":"ls","timeout_seconds":5}`}, {6, `{"command":""}`}, {6, `{"command":"x","network":"yes"}`},
		{7, `not json`}, {0, `{"path":1}`}, {0, ``},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.args)
	}
	reg, err := NewRegistry(Builtins()...)
	if err != nil {
		f.Fatal(err)
	}
	parent := f.TempDir() // one per worker process
	secret := randomSecret(f)
	outside := filepath.Join(parent, "outside")
	root := filepath.Join(parent, "ws")
	for path, body := range map[string]string{filepath.Join(outside, "secret.txt"): secret + "\n",
		filepath.Join(root, "a.txt"): "hello\nworld\n", filepath.Join(root, "sub", "b.go"): "package sub\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if os.Symlink("../outside", filepath.Join(root, "link")) != nil || os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "abslink")) != nil {
		f.Fatal("symlinks")
	}
	ws, err := NewManager().Acquire(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(ws.Release)
	before := tree(f, parent, root)
	names := reg.order
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		name := names[int(tool)%len(names)]
		if int(tool) >= len(names) && tool%2 == 1 {
			name = "no_such_tool"
		}
		if name == "run_shell_command" {
			checkDecodes[shellArgs](t, reg, name, args)
			return
		}
		res := reg.Run(context.Background(), ws, Call{ID: "c1", Name: name, Arguments: args}, nil)
		if strings.Contains(res.Content, "panicked") {
			t.Fatalf("%s(%s) panicked: %s", name, args, res.Content)
		}
		if strings.Contains(res.Content, secret) {
			t.Fatalf("%s(%s) read a file outside the workspace: %s", name, args, res.Content)
		}
		if after := tree(t, parent, root); after != before {
			t.Fatalf("%s(%s) changed something outside the workspace:\n%s\nthen\n%s", name, args, before, after)
		}
	})
}

// checkDecodes: arguments the schema of the tool name accepts decode into its A.
func checkDecodes[A any](t *testing.T, reg *Registry, name, args string) {
	raw := strings.TrimSpace(args)
	if raw == "" {
		raw = "{}"
	}
	var inst any
	if json.Unmarshal([]byte(raw), &inst) != nil || reg.byName[name].schema.Validate(inst) != nil {
		return
	}
	if _, err := decodeArgs[A](json.RawMessage(raw)); err != nil {
		t.Fatalf("%s: the schema accepts %s but it does not decode: %v", name, raw, err)
	}
}

// tree lists every path under dir except inside skip, with the contents of files: what a
// tool confined to skip must leave as it is.
func tree(t testing.TB, dir, skip string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		b.WriteString(p)
		if d.Type().IsRegular() {
			body, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(" " + string(body))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func randomSecret(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "secret-" + hex.EncodeToString(b)
}
