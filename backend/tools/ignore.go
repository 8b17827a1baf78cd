package tools

import (
	"bufio"
	"bytes"
	"io/fs"
	"path"
	"strings"
)

// defaultIgnores are skipped everywhere: they are large, machine-written, and would
// exhaust inotify watches on big projects.
var defaultIgnores = []string{".git", "node_modules"}

// ignoreRule is one .gitignore line. Supported: blank lines, # comments, ! negation,
// trailing / (folders only), a leading or inner / (anchored to the .gitignore's
// folder), globs with * ? [..] and ** segments. Not supported: escaped trailing
// spaces and the global excludes file.
type ignoreRule struct {
	base     string // folder holding the .gitignore, relative, "" for the root
	segs     []string
	anchored bool
	dirOnly  bool
	negate   bool
}

// ignoreMatcher decides which paths the watcher and the search tools skip. It is
// not safe for concurrent mutation; each walk or watcher owns one.
type ignoreMatcher struct {
	rules []ignoreRule
}

func newIgnoreMatcher(extra []string) *ignoreMatcher {
	m := &ignoreMatcher{}
	for _, p := range defaultIgnores {
		m.add("", p)
	}
	for _, p := range extra {
		m.add("", p)
	}
	return m
}

// add parses one gitignore line found in folder base.
func (m *ignoreMatcher) add(base, line string) {
	line = strings.TrimRight(line, " \t\r")
	if line == "" || strings.HasPrefix(line, "#") {
		return
	}
	r := ignoreRule{base: base}
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" || checkGlob(line) != nil {
		return
	}
	r.segs = strings.Split(line, "/")
	m.rules = append(m.rules, r)
}

// addFile reads the rules of a .gitignore found in folder base.
func (m *ignoreMatcher) addFile(base string, data []byte) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		m.add(base, sc.Text())
	}
}

// loadFrom reads dir/.gitignore from fsys when there is one.
func (m *ignoreMatcher) loadFrom(fsys fs.FS, dir string) {
	name := path.Join(dir, ".gitignore")
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return // absent or unreadable: nothing to honour
	}
	base := dir
	if base == "." {
		base = ""
	}
	m.addFile(base, data)
}

// ignored reports whether rel (slash-separated, relative to the root) is skipped.
// Callers check each entry as they descend, so a path's folders are never ignored
// when this is asked; the last matching rule wins, as in git.
func (m *ignoreMatcher) ignored(rel string, isDir bool) bool {
	out := false
	for i := range m.rules {
		r := &m.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		var hit bool
		if r.anchored {
			hit = matchSegments(r.segs, strings.Split(sub, "/"))
		} else {
			hit, _ = path.Match(r.segs[0], path.Base(sub))
		}
		if hit {
			out = !r.negate
		}
	}
	return out
}
