package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileNumbersLinesAndPages(t *testing.T) {
	ws := newWS(t)
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	writeFile(t, filepath.Join(ws.Root(), "f.txt"), b.String())

	res := run(t, ws, "read_file", m{"path": "f.txt"})
	if res.IsError || !strings.HasPrefix(res.Content, "     1\tline 1\n") || !strings.Contains(res.Content, "    30\tline 30\n") {
		t.Fatalf("whole file: %+v", res)
	}
	if res.Meta.Truncated {
		t.Fatalf("meta: %+v", res.Meta)
	}
	res = run(t, ws, "read_file", m{"path": "f.txt", "offset": 10, "limit": 3})
	want := "    10\tline 10\n    11\tline 11\n    12\tline 12\n(showing lines 10-12 of 30; pass offset=13 to read more)\n"
	if res.IsError || res.Content != want || !res.Meta.Truncated {
		t.Fatalf("page:\n%q\nwant\n%q", res.Content, want)
	}
	res = run(t, ws, "read_file", m{"path": "f.txt", "offset": 99})
	if res.IsError || !strings.Contains(res.Content, "past the end") {
		t.Fatalf("offset past end: %+v", res)
	}
}

func TestReadFileCapsLongLinesAndRefusesBinaryAndFolders(t *testing.T) {
	ws := newWS(t)
	writeFile(t, filepath.Join(ws.Root(), "long.txt"), strings.Repeat("é", 3000)+"\n")
	res := run(t, ws, "read_file", m{"path": "long.txt"})
	if res.IsError || !strings.Contains(res.Content, "[line cut]") || len(res.Content) > lineCap+100 {
		t.Fatalf("long line: len=%d %q", len(res.Content), res.Content[len(res.Content)-40:])
	}
	if err := os.WriteFile(filepath.Join(ws.Root(), "img.png"), []byte{0x89, 'P', 'N', 'G', 0, 0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"img.png":     "refusing to read a binary file (8 bytes)",
		".":           "is a directory",
		"missing.txt": "no such file or directory",
	} {
		res := run(t, ws, "read_file", m{"path": path})
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("read_file %s: %+v, want %q", path, res, want)
		}
	}
	writeFile(t, filepath.Join(ws.Root(), "empty.txt"), "")
	if res := run(t, ws, "read_file", m{"path": "empty.txt"}); res.IsError || !strings.Contains(res.Content, "empty") {
		t.Fatalf("empty file: %+v", res)
	}
}

func TestListDir(t *testing.T) {
	ws := newWS(t)
	writeFile(t, filepath.Join(ws.Root(), "b.txt"), "12345")
	writeFile(t, filepath.Join(ws.Root(), "a", "x.go"), "")
	if err := os.Symlink("b.txt", filepath.Join(ws.Root(), "c")); err != nil {
		t.Fatal(err)
	}
	res := run(t, ws, "list_dir", m{})
	want := "a/\nb.txt (5 bytes)\nc -> b.txt\n"
	if res.IsError || res.Content != want {
		t.Fatalf("list_dir:\n%q\nwant %q", res.Content, want)
	}
	if res := run(t, ws, "list_dir", m{"path": "b.txt"}); !res.IsError || !strings.Contains(res.Content, "not a directory") {
		t.Fatalf("list a file: %+v", res)
	}
	if res := run(t, ws, "list_dir", m{"path": "nope"}); !res.IsError {
		t.Fatalf("list a missing folder: %+v", res)
	}
}

func searchFixture(t *testing.T) *Workspace {
	ws := newWS(t)
	r := ws.Root()
	writeFile(t, filepath.Join(r, ".gitignore"), "# build output\n/dist/\n*.log\n")
	writeFile(t, filepath.Join(r, "main.go"), "package main\n// TODO: fix\n")
	writeFile(t, filepath.Join(r, "src", "a", "deep_test.go"), "package a\n// todo later\n")
	writeFile(t, filepath.Join(r, "src", "a", "notes.md"), "TODO in markdown\n")
	writeFile(t, filepath.Join(r, "src", ".gitignore"), "generated/\n")
	writeFile(t, filepath.Join(r, "src", "generated", "gen.go"), "// TODO generated\n")
	writeFile(t, filepath.Join(r, "dist", "bundle.js"), "// TODO built\n")
	writeFile(t, filepath.Join(r, "debug.log"), "TODO logged\n")
	writeFile(t, filepath.Join(r, "node_modules", "x", "index.js"), "// TODO dep\n")
	writeFile(t, filepath.Join(r, ".git", "HEAD"), "TODO git\n")
	if err := os.WriteFile(filepath.Join(r, "blob.bin"), []byte("TODO\x00binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestFindFilesGlobsAndIgnores(t *testing.T) {
	ws := searchFixture(t)
	cases := []struct {
		args m
		want string
	}{
		{m{"pattern": "*.go"}, "main.go\nsrc/a/deep_test.go\n"},
		{m{"pattern": "src/**/*_test.go"}, "src/a/deep_test.go\n"},
		{m{"pattern": "**/*.md"}, "src/a/notes.md\n"},
		{m{"pattern": "a/*", "path": "src"}, "src/a/deep_test.go\nsrc/a/notes.md\n"},
		{m{"pattern": "*.js", "path": "node_modules"}, "node_modules/x/index.js\n"}, // explicitly asked for
	}
	for _, c := range cases {
		res := run(t, ws, "find_files", c.args)
		if res.IsError || res.Content != c.want {
			t.Errorf("find_files %v = %q, want %q", c.args, res.Content, c.want)
		}
	}
	if res := run(t, ws, "find_files", m{"pattern": "*.xyz"}); res.IsError || !strings.HasPrefix(res.Content, "no files match") {
		t.Errorf("no match: %+v", res)
	}
	if res := run(t, ws, "find_files", m{"pattern": "[z-"}); !res.IsError || !strings.Contains(res.Content, "bad glob") {
		t.Errorf("bad glob: %+v", res)
	}
}

func TestSearchTextSkipsBinaryAndIgnoredFiles(t *testing.T) {
	ws := searchFixture(t)
	res := run(t, ws, "search_text", m{"pattern": "TODO"})
	want := "main.go:2: // TODO: fix\nsrc/a/notes.md:1: TODO in markdown\n"
	if res.IsError || res.Content != want {
		t.Fatalf("search:\n%q\nwant\n%q", res.Content, want)
	}
	res = run(t, ws, "search_text", m{"pattern": "todo", "case_insensitive": true, "glob": "*.go"})
	want = "main.go:2: // TODO: fix\nsrc/a/deep_test.go:2: // todo later\n"
	if res.IsError || res.Content != want {
		t.Fatalf("case-insensitive with glob:\n%q\nwant\n%q", res.Content, want)
	}
	res = run(t, ws, "search_text", m{"pattern": "TODO", "path": "src/a/notes.md"})
	if res.IsError || res.Content != "src/a/notes.md:1: TODO in markdown\n" {
		t.Fatalf("single file: %q", res.Content)
	}
	if res := run(t, ws, "search_text", m{"pattern": "(unclosed"}); !res.IsError || !strings.Contains(res.Content, "bad regular expression") {
		t.Fatalf("bad regex: %+v", res)
	}
}

func TestSearchTextCapsMatches(t *testing.T) {
	ws := newWS(t)
	writeFile(t, filepath.Join(ws.Root(), "many.txt"), strings.Repeat("hit\n", 50))
	res := run(t, ws, "search_text", m{"pattern": "hit", "max_matches": 5})
	if res.IsError || strings.Count(res.Content, "many.txt:") != 5 || !res.Meta.Truncated || !strings.Contains(res.Content, "stopped after 5 matches") {
		t.Fatalf("capped search: %+v", res)
	}
}

func TestWriteFileCreatesParentsAndKeepsTheMode(t *testing.T) {
	ws := newWS(t)
	res := run(t, ws, "write_file", m{"path": "a/b/c.txt", "content": "hello"})
	if res.IsError || res.Content != "created a/b/c.txt (5 bytes written)" {
		t.Fatalf("create: %+v", res)
	}
	if got := readFile(t, filepath.Join(ws.Root(), "a", "b", "c.txt")); got != "hello" {
		t.Fatalf("content = %q", got)
	}
	if err := os.Chmod(filepath.Join(ws.Root(), "a", "b", "c.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	res = run(t, ws, "write_file", m{"path": "a/b/c.txt", "content": "bye"})
	if res.IsError || res.Content != "overwrote a/b/c.txt (3 bytes written)" {
		t.Fatalf("overwrite: %+v", res)
	}
	if fi, _ := os.Stat(filepath.Join(ws.Root(), "a", "b", "c.txt")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("overwrite lost the file mode: %v", fi.Mode())
	}
	if res := run(t, ws, "write_file", m{"path": "a", "content": "x"}); !res.IsError || !strings.Contains(res.Content, "is a directory") {
		t.Fatalf("write over a folder: %+v", res)
	}
	if res := run(t, ws, "write_file", m{"path": "a/b/c.txt/d", "content": "x"}); !res.IsError {
		t.Fatalf("write below a file: %+v", res)
	}
}

func TestEditFile(t *testing.T) {
	ws := newWS(t)
	path := filepath.Join(ws.Root(), "f.go")
	writeFile(t, path, "a := 1\nb := 1\nc := 2\n")
	cases := []struct {
		name string
		args m
		want string // error substring, or "" for success
	}{
		{"missing text", m{"old_string": "d := 3", "new_string": "x"}, "old_string not found"},
		{"not unique", m{"old_string": ":= 1", "new_string": ":= 9"}, "occurs 2 times"},
		{"same text", m{"old_string": "c", "new_string": "c"}, "the same"},
		{"missing file", m{"path": "nope.go", "old_string": "a", "new_string": "b"}, "does not exist; use write_file"},
	}
	for _, c := range cases {
		args := m{"path": "f.go"}
		for k, v := range c.args {
			args[k] = v
		}
		res := run(t, ws, "edit_file", args)
		if !res.IsError || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s: %+v, want %q", c.name, res, c.want)
		}
	}
	if got := readFile(t, path); got != "a := 1\nb := 1\nc := 2\n" {
		t.Fatalf("failed edits changed the file: %q", got)
	}
	res := run(t, ws, "edit_file", m{"path": "f.go", "old_string": "c := 2", "new_string": "c := 3"})
	if res.IsError || readFile(t, path) != "a := 1\nb := 1\nc := 3\n" {
		t.Fatalf("unique edit: %+v", res)
	}
	res = run(t, ws, "edit_file", m{"path": "f.go", "old_string": ":= 1", "new_string": ":= 7", "replace_all": true})
	if res.IsError || res.Content != "replaced 2 occurrence(s) in f.go" || readFile(t, path) != "a := 7\nb := 7\nc := 3\n" {
		t.Fatalf("replace_all: %+v", res)
	}
	if err := os.WriteFile(filepath.Join(ws.Root(), "b.bin"), []byte("a\x00b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := run(t, ws, "edit_file", m{"path": "b.bin", "old_string": "a", "new_string": "c"}); !res.IsError || !strings.Contains(res.Content, "binary") {
		t.Fatalf("binary edit: %+v", res)
	}
}

func TestWorkspaceWalkSeesWhatTheToolsSee(t *testing.T) {
	ws := searchFixture(t)
	var got []string
	err := ws.Walk(context.Background(), func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	want := ".gitignore blob.bin main.go src/ src/.gitignore src/a/ src/a/deep_test.go src/a/notes.md"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("walk = %v, %v\nwant %s", got, err, want)
	}
	n := 0
	err = ws.Walk(context.Background(), func(string, fs.DirEntry) error {
		n++
		if n == 2 {
			return ErrStopWalk
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("stop: n=%d err=%v", n, err)
	}
}
