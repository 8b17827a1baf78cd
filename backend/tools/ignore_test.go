package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIgnoreMatcher(t *testing.T) {
	ig := newIgnoreMatcher([]string{"*.swp"})
	ig.addFile("", []byte("# comment\n\n*.log\n!keep.log\n/build/\ndocs/**/*.tmp\ncache/\n\\#hash\n"))
	ig.addFile("web", []byte("dist\n/local.txt\n"))
	cases := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{".git", true, true},
		{"a/.git", true, true},
		{"node_modules", true, true},
		{"pkg/node_modules", true, true},
		{"x.swp", false, true},
		{"a/b/app.log", false, true},
		{"keep.log", false, false},
		{"build", true, true},
		{"build", false, false}, // trailing slash: folders only
		{"src/build", true, false},
		{"docs/a/b/x.tmp", false, true},
		{"docs/x.tmp", false, true},
		{"other/x.tmp", false, false},
		{"cache", true, true},
		{"deep/cache", true, true},
		{"#hash", false, true},
		{"comment", false, false},
		{"web/dist", true, true},
		{"web/a/dist", false, true},
		{"dist", true, false}, // web's rules stay in web
		{"web/local.txt", false, true},
		{"web/a/local.txt", false, false},
		{"main.go", false, false},
	}
	for _, c := range cases {
		if got := ig.ignored(c.path, c.isDir); got != c.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", c.path, c.isDir, got, c.want)
		}
	}
}

func TestGlobs(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "c.go", true},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/x/y/a.go", true},
		{"**", "anything/at/all", true},
		{"/src/*.go", "src/a.go", true},
		{"src/**", "srcx/a", false},
	}
	for _, c := range cases {
		if got := matchGlob(c.pattern, c.path); got != c.want {
			t.Errorf("matchGlob(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
	text := []struct {
		pattern, s string
		want       bool
	}{
		{"git status*", "git status --short src/", true},
		{"git status*", "git stash", false},
		{"*rm -rf*", "cd x && rm -rf /", true},
		{"go test ./...", "go test ./...", true},
		{"go ?est", "go test", true},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
	}
	for _, c := range text {
		if got := matchText(c.pattern, c.s); got != c.want {
			t.Errorf("matchText(%q, %q) = %v", c.pattern, c.s, got)
		}
	}
}

func TestIgnoreExported(t *testing.T) {
	root := t.TempDir()
	for p, body := range map[string]string{".gitignore": "*.log\n/dist/\n", "sub/.gitignore": "secret.txt\n"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ig := NewIgnore(os.DirFS(root))
	for _, c := range []struct {
		rel  string
		dir  bool
		want bool
	}{
		{"a.go", false, false}, {"a.log", false, true}, {"dist", true, true}, {"dist/x.js", false, true},
		{"node_modules/p/i.js", false, true}, {".git/HEAD", false, true}, {"sub/secret.txt", false, true},
		{"secret.txt", false, false}, {"sub/ok.txt", false, false}, {"src/dist/x", false, false},
	} {
		if got := ig.Ignored(c.rel, c.dir); got != c.want {
			t.Errorf("Ignored(%q) = %v, want %v", c.rel, got, c.want)
		}
	}
}
