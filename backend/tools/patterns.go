package tools

// Patterns is a set of gitignore-syntax lines read from one file (such as
// .loopdeskignore or .worktreeinclude) at a folder's root, without the
// watcher's default ignores. Not safe for concurrent use.
type Patterns struct{ m *ignoreMatcher }

// NewPatterns parses data as the lines of a gitignore-syntax file at the root.
func NewPatterns(data []byte) *Patterns {
	m := &ignoreMatcher{}
	m.addFile("", data)
	return &Patterns{m: m}
}

// Match reports whether rel (slash-separated, relative to the root) is
// matched. Callers walking a tree check each entry as they descend and skip
// a matched folder, as git does.
func (p *Patterns) Match(rel string, isDir bool) bool {
	return p.m.ignored(rel, isDir)
}
