package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// ForkFolder is the working copy a fork with files works in. Root is the
// folder made for the fork (ForksDir/<fork id>); Folder is where the fork's
// session works: Root itself, or the same subfolder of the checkout the
// parent's folder is of its repository. Branch is the fork's git branch
// (loopdesk/<fork id>), "" when the parent's folder is not in a repository.
type ForkFolder struct {
	SessionID string `json:"session_id"`
	Folder    string `json:"folder"`
	Branch    string `json:"branch"`
	Root      string `json:"-"`
}

// ForksDir is where fork folders live: beside the database, one per fork
// session, named by its id (so a folder whose session is gone is an orphan).
func ForksDir(dbPath string) string {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		abs = dbPath
	}
	return filepath.Join(filepath.Dir(abs), "forks")
}

// BranchOf is the git branch of fork forkID's worktree.
func BranchOf(forkID string) string { return "loopdesk/" + forkID }

// MakeForkFolder gives fork forkID of parentID (forked at row seq) its own
// working copy under forksDir:
//
//   - parent's folder inside a git repository: `git worktree add` on a new
//     branch loopdesk/<fork id> at the repository's HEAD, then the changes of
//     the parent's line up to row seq applied on top (so `git status` shows
//     exactly them), then the files a .worktreeinclude at the repository's
//     root matches (gitignore syntax; e.g. .env) copied over;
//   - otherwise: a full copy of the folder, ignored files included, except
//     what a .loopdeskignore at its root names, with the changes of the
//     parent's line after row seq undone.
//
// The parent's line (see lineage) is its own records, then, when it is itself
// a fork, those of the sessions it was forked from up to each fork point: its
// rows copied from them changed the folder as much as its own did.
//
// On error nothing is left behind (the worktree and branch are removed).
func (r *Recorder) MakeForkFolder(ctx context.Context, parentID string, seq int64, forkID, forksDir string) (ForkFolder, error) {
	out, err := r.makeForkFolder(ctx, parentID, seq, forkID, forksDir)
	if err != nil {
		RemoveForkFolder(ctx, forksDir, forkID)
		return ForkFolder{}, fmt.Errorf("make the folder of fork %s (session %s at row %d): %w", forkID, parentID, seq, err)
	}
	return out, nil
}

func (r *Recorder) makeForkFolder(ctx context.Context, parentID string, seq int64, forkID, forksDir string) (ForkFolder, error) {
	s, err := r.db.GetSession(ctx, parentID)
	if err != nil {
		return ForkFolder{}, err
	}
	ws, err := cleanRoot(s.Workspace)
	if err != nil {
		return ForkFolder{}, err
	}
	dest := filepath.Join(forksDir, forkID)
	if ents, err := os.ReadDir(dest); err == nil && len(ents) > 0 {
		return ForkFolder{}, ErrDestination
	}
	if err := os.MkdirAll(forksDir, 0o700); err != nil {
		return ForkFolder{}, err
	}
	rs, err := r.acquire(ctx, ws)
	if err != nil {
		return ForkFolder{}, err
	}
	defer rs.release()
	if err := r.catchUp(ctx, rs, parentID, "", "fork"); err != nil {
		return ForkFolder{}, err
	}
	spans, err := r.lineage(ctx, s)
	if err != nil {
		return ForkFolder{}, err
	}
	spans[0].root = rs.path
	out := ForkFolder{SessionID: forkID, Root: dest, Folder: dest}
	top, err := gitOut(ctx, ws, "rev-parse", "--show-toplevel")
	if err != nil { // not a repository (or no git): a full copy
		if err := copyTree(ctx, ws, dest); err != nil {
			return out, err
		}
		return out, r.undoAfter(ctx, rs, spans, seq, dest)
	}
	rel, err := relInRepo(top, ws)
	if err != nil {
		return out, err
	}
	out.Branch, out.Folder = BranchOf(forkID), filepath.Join(dest, rel)
	if _, err := gitOut(ctx, top, "worktree", "add", "-b", out.Branch, dest, "HEAD"); err != nil {
		return out, err
	}
	if err := r.applyUpTo(ctx, rs, spans, seq, out.Folder); err != nil {
		return out, err
	}
	return out, copyIncluded(ctx, top, dest)
}

// relInRepo is ws relative to the repository's top (both with symlinks resolved).
func relInRepo(top, ws string) (string, error) {
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("folder %s is not inside its repository %s", ws, top)
	}
	return rel, nil
}

// applyUpTo writes into folder the state the line (spans) left each path it
// changed at or before row seq in (the last such change wins). A span's
// records are those made in its session's folder, which folder derives from
// with the same relative paths.
func (r *Recorder) applyUpTo(ctx context.Context, rs *rootState, spans []lineSpan, seq int64, folder string) error {
	line, args := spansWhere(spans, true)
	rows, err := queryChanges(ctx, r.sql, line+` AND c.seq <= ?`+notOutside, append(args, seq)...)
	if err != nil {
		return err
	}
	targets := map[string]*Entry{}
	for _, row := range rows {
		targets[row.Path] = row.After
	}
	return r.writeInto(ctx, rs, folder, targets)
}

// undoAfter puts back, in folder (a copy of the session's folder), the state
// before the line's (spans') first change after row seq of each path it
// changed: forked at an inherited row, the ancestors' changes between that row
// and the fork point are in the copy too.
func (r *Recorder) undoAfter(ctx context.Context, rs *rootState, spans []lineSpan, seq int64, folder string) error {
	line, args := spansWhere(spans, true)
	rows, err := queryChanges(ctx, r.sql, line+` AND c.seq > ?`+notOutside, append(args, seq)...)
	if err != nil {
		return err
	}
	targets := map[string]*Entry{}
	for i := len(rows) - 1; i >= 0; i-- { // newest first: the earliest before wins
		targets[rows[i].Path] = rows[i].Before
	}
	return r.writeInto(ctx, rs, folder, targets)
}

// writeInto makes each path of targets hold its state in folder. A big
// file whose content was not kept is copied from the session's folder when
// it is still the same there; otherwise it is left as it is in folder.
func (r *Recorder) writeInto(ctx context.Context, rs *rootState, folder string, targets map[string]*Entry) error {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return err
	}
	defer root.Close()
	current := map[string]*Entry{}
	for p, t := range targets {
		if t != nil && t.Kind == KindFile && !t.Stored && !sameContent(rs.cache[p], t) {
			delete(targets, p)
			continue
		}
		e, err := lstat(folder, p)
		if err != nil {
			return err
		}
		if e != nil {
			if _, err := readEntry(root, p, e, 0); err != nil {
				return err
			}
		}
		current[p] = e
	}
	_, err = r.writeStates(ctx, root, targets, current, rs.fsr)
	return err
}

// gitOut runs git in dir and returns its trimmed stdout; the error carries
// git's own message.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// copyIncluded copies into dest the untracked files of the repository at
// top that its .worktreeinclude matches (git itself reads the patterns).
func copyIncluded(ctx context.Context, top, dest string) error {
	if _, err := os.Stat(filepath.Join(top, ".worktreeinclude")); err != nil {
		return nil
	}
	list, err := gitOut(ctx, top, "ls-files", "-z", "--others", "--ignored", "--exclude-from=.worktreeinclude")
	if err != nil {
		return err
	}
	for _, p := range strings.Split(list, "\x00") {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dest, p)); err == nil {
			continue // the checkout has it
		}
		if err := copyEntry(filepath.Join(top, p), filepath.Join(dest, p)); err != nil {
			return fmt.Errorf("copy %s (.worktreeinclude): %w", p, err)
		}
	}
	return nil
}

// copyTree copies src into dest: files, folders and symlinks (as links),
// with their permissions; what a .loopdeskignore at src names is skipped.
func copyTree(ctx context.Context, src, dest string) error {
	var pat interface{ Match(string, bool) bool } = noPatterns{}
	if data, err := os.ReadFile(filepath.Join(src, ".loopdeskignore")); err == nil {
		pat = tools.NewPatterns(data)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel != "." && pat.Match(filepath.ToSlash(rel), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		return copyEntry(p, filepath.Join(dest, rel))
	})
}

type noPatterns struct{}

func (noPatterns) Match(string, bool) bool { return false }

// copyEntry copies one file, folder (not its content) or symlink.
func copyEntry(src, dest string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		// Owner-writable, or its own content could not be copied in.
		if err := os.Mkdir(dest, fi.Mode().Perm()|0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(t, dest)
	case !fi.Mode().IsRegular():
		return nil // sockets, pipes, devices
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := out.ReadFrom(in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
