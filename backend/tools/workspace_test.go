package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// confinementFixture builds parent/{ws,outside,ws-evil} with symlinks in ws that
// lead outside in every way we could think of.
func confinementFixture(t *testing.T) (parent string, ws *Workspace) {
	t.Helper()
	parent = t.TempDir()
	root := filepath.Join(parent, "ws")
	outside := filepath.Join(parent, "outside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "SECRET\n")
	writeFile(t, filepath.Join(parent, "ws-evil", "secret.txt"), "SECRET\n")
	writeFile(t, filepath.Join(root, "a.txt"), "inside\n")
	writeFile(t, filepath.Join(root, "sub", "b.txt"), "inside b\n")
	links := map[string]string{
		"out":        "../outside",
		"outabs":     outside,
		"chain1":     "chain2",
		"chain2":     "sub/../chain3",
		"chain3":     "../outside",
		"inlink":     "sub",
		"secretlink": "../outside/secret.txt",
		"dangling":   "../outside/created-through-link.txt",
		"loop1":      "loop2",
		"loop2":      "loop1",
		"etc":        "/etc",
		"sub/up":     "../..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := NewManager().Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Release)
	return parent, w
}

// treeState lists every path under dir (not following links) with file contents.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		line := p
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += " = " + string(b)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestConfinementRefusesEveryEscape(t *testing.T) {
	parent, ws := confinementFixture(t)
	outside := filepath.Join(parent, "outside")
	outsideBefore := treeState(t, outside)
	evilBefore := treeState(t, filepath.Join(parent, "ws-evil"))
	entries, _ := os.ReadDir(parent)
	const refused = "outside the workspace"
	cases := []struct {
		name string
		tool string
		args m
		want string // in the error message
	}{
		{"dot-dot", "read_file", m{"path": "../outside/secret.txt"}, refused},
		{"absolute outside", "read_file", m{"path": filepath.Join(outside, "secret.txt")}, refused},
		{"absolute with doubled slashes", "read_file", m{"path": "//" + filepath.Join(outside, "secret.txt")}, refused},
		{"absolute sibling sharing the prefix", "read_file", m{"path": filepath.Join(parent, "ws-evil", "secret.txt")}, refused},
		{"relative symlink to a folder outside", "read_file", m{"path": "out/secret.txt"}, refused},
		{"absolute symlink outside", "read_file", m{"path": "outabs/secret.txt"}, refused},
		{"symlink chain", "read_file", m{"path": "chain1/secret.txt"}, refused},
		{"dot-dot after an inside symlink", "read_file", m{"path": "inlink/../../outside/secret.txt"}, refused},
		{"dot-dot after an outside symlink", "list_dir", m{"path": "out/.."}, refused},
		{"symlink climbing out from a subfolder", "list_dir", m{"path": "sub/up"}, refused},
		{"symlink to a file outside", "read_file", m{"path": "secretlink"}, refused},
		{"symlink to /etc", "read_file", m{"path": "etc/passwd"}, refused},
		{"symlink loop", "read_file", m{"path": "loop1/x"}, "too many levels of symbolic links"},
		{"NUL byte", "read_file", m{"path": "a.txt\x00../../outside/secret.txt"}, "NUL byte"},
		{"percent-encoded dot-dot", "read_file", m{"path": "%2e%2e/outside/secret.txt"}, "no such file"},
		{"backslashes", "read_file", m{"path": `..\outside\secret.txt`}, "no such file"},
		{"tilde", "read_file", m{"path": "~/../outside/secret.txt"}, "no such file"},
		{"write through dangling symlink", "write_file", m{"path": "dangling", "content": "pwned"}, refused},
		{"write into symlinked folder", "write_file", m{"path": "out/pwned.txt", "content": "pwned"}, refused},
		{"write with dot-dot", "write_file", m{"path": "sub/../../pwned.txt", "content": "pwned"}, refused},
		{"write after inside symlink", "write_file", m{"path": "inlink/../../outside/pwned.txt", "content": "pwned"}, refused},
		{"edit through symlink", "edit_file", m{"path": "secretlink", "old_string": "SECRET", "new_string": "pwned"}, refused},
		{"list root of the disk", "list_dir", m{"path": "/"}, refused},
		{"find in symlinked folder", "find_files", m{"pattern": "*", "path": "out"}, refused},
		{"search above the root", "search_text", m{"pattern": "SECRET", "path": ".."}, refused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, ws, c.tool, c.args)
			if !res.IsError || !strings.Contains(res.Content, c.want) {
				t.Fatalf("got %+v, want an error mentioning %q", res, c.want)
			}
			if strings.Contains(res.Content, "SECRET") {
				t.Fatalf("outside content leaked: %s", res.Content)
			}
		})
	}
	// Walking tools must not follow symlinks out of the workspace either.
	for _, tool := range []struct {
		name string
		args m
	}{
		{"search_text", m{"pattern": "SECRET"}},
		{"find_files", m{"pattern": "**/secret*"}},
	} {
		res := run(t, ws, tool.name, tool.args)
		if strings.Contains(res.Content, "secret.txt\n") || strings.Contains(res.Content, "secret.txt:") {
			t.Fatalf("%s followed a symlink outside: %s", tool.name, res.Content)
		}
	}
	if got := treeState(t, outside); got != outsideBefore {
		t.Fatalf("outside folder changed:\n%s\nwas:\n%s", got, outsideBefore)
	}
	if got := treeState(t, filepath.Join(parent, "ws-evil")); got != evilBefore {
		t.Fatalf("sibling folder changed")
	}
	after, _ := os.ReadDir(parent)
	if len(after) != len(entries) {
		t.Fatalf("new entries next to the workspace: %v", after)
	}
}

func TestConfinementAllowsWhatStaysInside(t *testing.T) {
	_, ws := confinementFixture(t)
	for _, p := range []string{"a.txt", "./a.txt", "sub/../a.txt", "inlink/b.txt", "inlink/../a.txt", filepath.Join(ws.Root(), "a.txt"), "sub//b.txt"} {
		res := run(t, ws, "read_file", m{"path": p})
		if res.IsError || !strings.Contains(res.Content, "inside") {
			t.Errorf("read_file %q: %+v", p, res)
		}
	}
	res := run(t, ws, "write_file", m{"path": "inlink/new.txt", "content": "hi"})
	if res.IsError || readFile(t, filepath.Join(ws.Root(), "sub", "new.txt")) != "hi" {
		t.Fatalf("write through an inside symlink: %+v", res)
	}
	if res.Content != "created sub/new.txt (2 bytes written)" {
		t.Fatalf("result = %q, want the resolved sub/new.txt", res.Content)
	}
}

func TestResolveErrorsAreSentinels(t *testing.T) {
	_, ws := confinementFixture(t)
	for p, want := range map[string]error{
		"../x":       ErrOutsideWorkspace,
		"out/x":      ErrOutsideWorkspace,
		"":           ErrInvalidPath,
		"a\x00b":     ErrInvalidPath,
		"loop1":      ErrInvalidPath,
		"/etc/hosts": ErrOutsideWorkspace,
	} {
		if _, err := ws.Resolve(p); !errors.Is(err, want) {
			t.Errorf("Resolve(%q) = %v, want %v", p, err, want)
		}
	}
	got, err := ws.Resolve("new/dir/file.txt")
	if err != nil || got != filepath.Join(ws.Root(), "new", "dir", "file.txt") {
		t.Fatalf("Resolve of a path to create = %q, %v", got, err)
	}
}

// The os.Root under the tools is a second line of defence: even a path that
// skipped Resolve (or a symlink swapped in after it) cannot leave the root.
func TestRootHandleRefusesEscapingSymlinks(t *testing.T) {
	_, ws := confinementFixture(t)
	if _, err := ws.fsroot.Open("out/secret.txt"); err == nil {
		t.Fatal("os.Root followed a symlink outside")
	}
}

func TestManagerSharesOneHandlePerRoot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "f.txt"), "x")
	mgr := NewManager()
	a, err := mgr.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	b, err := mgr.Acquire(link + "/") // a fork reaching the same folder another way
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.Refs() != 2 {
		t.Fatalf("want one shared handle with 2 refs, got %p %p refs=%d", a, b, a.Refs())
	}
	a.Release()
	if res := run(t, b, "read_file", m{"path": "f.txt"}); res.IsError {
		t.Fatalf("workspace closed while still held: %+v", res)
	}
	b.Release()
	if res := run(t, b, "read_file", m{"path": "f.txt"}); !res.IsError || !strings.Contains(res.Content, "closed") {
		t.Fatalf("released workspace still usable: %+v", res)
	}
	b.Release() // extra release is harmless
	c, err := mgr.Acquire(dir)
	if err != nil || c == a || c.Refs() != 1 {
		t.Fatalf("reacquire after close: %v %v", c, err)
	}
	c.Release()
	if _, err := mgr.Acquire(filepath.Join(dir, "f.txt")); !errors.Is(err, ErrNotDirectory) {
		t.Fatalf("acquire a file: %v", err)
	}
	if _, err := mgr.Acquire(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("acquire a missing folder: %v", err)
	}
}
