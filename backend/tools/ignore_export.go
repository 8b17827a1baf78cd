package tools

import (
	"io/fs"
	"strings"
)

// Ignore is the watcher's and the file tools' ignore rules (.git,
// node_modules, .gitignore files) for one folder, for other packages
// (backend/checkpoint) that must skip exactly what they skip. Not safe for
// concurrent use. .gitignore files are read once, when first needed; a
// caller that sees one change makes a new Ignore.
type Ignore struct {
	m      *ignoreMatcher
	fsys   fs.FS
	loaded map[string]bool
}

// NewIgnore reads the rules below fsys's root (an os.Root's FS).
func NewIgnore(fsys fs.FS) *Ignore {
	return &Ignore{m: newIgnoreMatcher(nil), fsys: fsys, loaded: map[string]bool{}}
}

// Ignored reports whether rel (slash-separated, relative to the root) or
// any folder above it is skipped.
func (ig *Ignore) Ignored(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	for i := range parts {
		ig.load(strings.Join(parts[:i], "/"))
		if ig.m.ignored(strings.Join(parts[:i+1], "/"), isDir || i < len(parts)-1) {
			return true
		}
	}
	return false
}

func (ig *Ignore) load(dir string) {
	if ig.loaded[dir] {
		return
	}
	ig.loaded[dir] = true
	if dir == "" {
		dir = "."
	}
	ig.m.loadFrom(ig.fsys, dir)
}
