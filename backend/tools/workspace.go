package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Sentinel errors of the workspace.
var (
	ErrOutsideWorkspace = errors.New("path is outside the workspace")
	ErrInvalidPath      = errors.New("invalid path")
	ErrWorkspaceClosed  = errors.New("workspace is closed")
	ErrNotDirectory     = errors.New("workspace root is not a directory")
	ErrNoWorkspace      = errors.New("no workspace")
)

// maxSymlinks matches Linux's limit on symlinks followed while resolving one path.
const maxSymlinks = 40

// Manager hands out one shared Workspace per root folder. A session and its forks
// acquire the same root and get the same handle; it closes after the last Release.
type Manager struct {
	mu   sync.Mutex
	open map[string]*Workspace // by real root path
}

// NewManager returns an empty Manager.
func NewManager() *Manager {
	return &Manager{open: make(map[string]*Workspace)}
}

// Workspace is a root folder every file tool is confined to. File operations go
// through an os.Root opened on it, so a symlink swapped in after Resolve still
// cannot lead outside.
type Workspace struct {
	m      *Manager
	root   string // absolute, symlinks resolved
	given  string // absolute, as acquired (may differ from root through symlinks)
	fsroot *os.Root
	refs   int // guarded by m.mu
	closed bool
}

// Acquire returns the workspace for root, opening it on first use. root must be an
// existing directory. Every successful Acquire must be matched by one Release.
func (m *Manager) Acquire(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("acquire workspace %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("acquire workspace %q: %w", root, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.open[real]; ok {
		w.refs++
		return w, nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("acquire workspace %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("acquire workspace %q: %w", root, ErrNotDirectory)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("acquire workspace %q: %w", root, err)
	}
	w := &Workspace{m: m, root: real, given: abs, fsroot: r, refs: 1}
	m.open[real] = w
	return w, nil
}

// Release gives up one reference; the last one closes the workspace. Extra calls
// are ignored.
func (w *Workspace) Release() {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	if w.refs == 0 {
		return
	}
	w.refs--
	if w.refs > 0 {
		return
	}
	w.closed = true
	_ = w.fsroot.Close() // read-only handle on a directory; nothing to flush
	if w.m.open[w.root] == w {
		delete(w.m.open, w.root)
	}
}

// Refs reports how many holders the workspace has (for the UI and tests).
func (w *Workspace) Refs() int {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	return w.refs
}

// Root is the absolute root folder with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

func (w *Workspace) isClosed() bool {
	if w == nil {
		return true
	}
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	return w.closed
}

// Resolve maps a path a tool was given to an absolute path inside the workspace,
// following symlinks the way the kernel does (so `link/..` is the parent of the
// link's target, not the link's folder). It refuses, with ErrOutsideWorkspace, any
// path that at any step leads outside the root, and with ErrInvalidPath empty paths
// and NUL bytes. Components that do not exist yet (a file about to be written) are
// appended as they are. Encoded forms (%2e%2e, backslashes) are not decoded: on
// this system they are ordinary file names, and resolve inside the root.
func (w *Workspace) Resolve(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: empty path", ErrInvalidPath)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%w: %q contains a NUL byte", ErrInvalidPath, p)
	}
	rest := p
	if filepath.IsAbs(p) {
		rel, ok := w.within(filepath.Clean(p))
		if !ok {
			return "", fmt.Errorf("%w: %s is not under %s", ErrOutsideWorkspace, p, w.root)
		}
		rest = rel
	}
	comps := strings.Split(filepath.ToSlash(rest), "/")
	cur := w.root // invariant: a real (symlink-free) path inside root, or below a missing component
	missing := false
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if cur == w.root {
				return "", fmt.Errorf("%w: %s climbs above %s", ErrOutsideWorkspace, p, w.root)
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if missing {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = true
			cur = next
			continue
		case err != nil:
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", fmt.Errorf("%w: %s: too many levels of symbolic links", ErrInvalidPath, p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			rel, ok := w.within(target)
			if !ok {
				return "", fmt.Errorf("%w: %s leads through symlink %s to %s", ErrOutsideWorkspace, p, w.Rel(next), target)
			}
			cur = w.root
			target = rel
		}
		comps = append(strings.Split(filepath.ToSlash(target), "/"), comps...)
	}
	return cur, nil
}

// within reports whether an absolute path lies under the root (as resolved or as
// given) and returns it relative to the root. It is lexical on purpose: the caller
// resolves the remainder component by component.
func (w *Workspace) within(abs string) (string, bool) {
	for _, base := range []string{w.root, w.given} {
		if abs == base {
			return ".", true
		}
		if strings.HasPrefix(abs, base+string(filepath.Separator)) {
			return abs[len(base)+1:], true
		}
	}
	return "", false
}

// Rel turns an absolute path inside the workspace into the slash-separated relative
// form shown to the model and the UI ("." for the root).
func (w *Workspace) Rel(abs string) string {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// open resolves p and returns the resolved absolute path and the same path relative
// to the root, ready for the os.Root methods.
func (w *Workspace) open(p string) (abs, rel string, err error) {
	if w == nil {
		return "", "", ErrNoWorkspace
	}
	if w.isClosed() {
		return "", "", ErrWorkspaceClosed
	}
	abs, err = w.Resolve(p)
	if err != nil {
		return "", "", err
	}
	rel, err = filepath.Rel(w.root, abs)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s", ErrOutsideWorkspace, p)
	}
	return abs, rel, nil
}
