package checkpoint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// delta is one tracked path whose recorded state must move from old to new
// (nil = absent). data is new's content for the blob store. A delta whose
// change is "" only refreshes stat fields.
type delta struct {
	path     string
	old, new *Entry
	data     []byte
	change   ChangeKind
}

// scan compares the folder with the cache. With full it walks the whole
// folder; otherwise it looks only at dirty paths and rescans trees. Files
// whose stat matches the cache are not read.
func scan(root *os.Root, cache map[string]*Entry, dirty, trees map[string]bool, full bool, max int64) ([]delta, error) {
	ig := tools.NewIgnore(os.DirFS(root.Name()))
	fresh := map[string]*Entry{}
	cand := map[string]bool{}
	under := func(dir string) {
		for p := range cache {
			if strings.HasPrefix(p, dir+"/") {
				cand[p] = true
			}
		}
	}
	walk := func(start string) error {
		if start != "" {
			under(start)
		}
		return walkStat(root.Name(), start, ig, func(rel string, e *Entry) { fresh[rel], cand[rel] = e, true })
	}
	if full {
		for p := range cache {
			cand[p] = true
		}
		if err := walk(""); err != nil {
			return nil, err
		}
	}
	for t := range trees {
		if !full {
			if err := walk(t); err != nil {
				return nil, err
			}
		}
	}
	for p := range dirty {
		if full || cand[p] && fresh[p] != nil {
			continue
		}
		cand[p] = true
		e, err := lstat(root.Name(), p)
		if err != nil {
			return nil, err
		}
		if e != nil && ig.Ignored(p, e.Kind == KindDir) {
			e = nil
		}
		old := cache[p]
		if e != nil {
			fresh[p] = e
		}
		if old != nil && old.Kind == KindDir && (e == nil || e.Kind != KindDir) {
			under(p)
		}
		if e != nil && e.Kind == KindDir && (old == nil || old.Kind != KindDir) {
			if err := walk(p); err != nil {
				return nil, err
			}
		}
	}
	return compare(root, cache, fresh, cand, max)
}

func compare(root *os.Root, cache, fresh map[string]*Entry, cand map[string]bool, max int64) ([]delta, error) {
	paths := make([]string, 0, len(cand))
	for p := range cand {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []delta
	for _, p := range paths {
		old, cur := cache[p], fresh[p]
		var data []byte
		if cur != nil {
			if sameStat(old, cur) {
				continue
			}
			var err error
			if data, err = readEntry(root, p, cur, max); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
				cur = nil // gone between the stat and the read
			}
		}
		if old == nil && cur == nil {
			continue
		}
		k, _ := diff(old, cur)
		out = append(out, delta{path: p, old: old, new: cur, data: data, change: k})
	}
	return out, nil
}

// lstat stats one path below dir without following a final symlink; an
// absent path (or one below a path that is no longer a folder) is nil.
func lstat(dir, rel string) (*Entry, error) {
	// A folder above rel swapped for a symlink would lead the stat
	// elsewhere (even outside): then rel is not a tracked path any more.
	for i := range len(rel) {
		if rel[i] != '/' {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel[:i])))
		if err != nil || !fi.IsDir() {
			return nil, nil
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
			return nil, nil
		}
		return nil, err
	}
	return statEntry(fi), nil
}

// walkStat visits every tracked path at and below start ("" = the whole
// folder, which itself is not visited), skipping what the watcher ignores
// and never following symlinks.
func walkStat(dir, start string, ig *tools.Ignore, visit func(rel string, e *Entry)) error {
	top := filepath.Join(dir, filepath.FromSlash(start))
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top {
				return err
			}
			return nil // unreadable below: skipped, as the watcher does
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if ig.Ignored(rel, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed while walking
		}
		if e := statEntry(fi); e != nil {
			visit(rel, e)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && start != "" {
		return nil
	}
	return err
}
