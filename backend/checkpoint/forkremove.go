package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// ForkRootOf returns the fork folder (ForksDir/<id>) a session works in,
// or "" when its folder is not one Loopdesk made for a fork.
func ForkRootOf(forksDir string, s store.Session) string {
	root := filepath.Join(forksDir, s.ID)
	if s.Workspace == root || strings.HasPrefix(s.Workspace, root+string(filepath.Separator)) {
		return root
	}
	return ""
}

// RemoveForkFolder removes fork forkID's folder under forksDir, and when it
// is a git worktree, the worktree's registration and its branch
// loopdesk/<fork id>. A folder already gone is no error. It returns the
// folder it removed ("" when there was none).
func RemoveForkFolder(ctx context.Context, forksDir, forkID string) (string, error) {
	if forkID == "" || strings.ContainsAny(forkID, `/\`) || forkID == "." || forkID == ".." {
		return "", fmt.Errorf("remove fork folder: bad fork id %q", forkID)
	}
	root := filepath.Join(forksDir, forkID)
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	// A worktree: its .git file names the repository; git removes the
	// worktree's registration, then the branch can go.
	if common, err := gitOut(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil && IsWorktree(root) {
		repo := filepath.Dir(common)
		if _, err := gitOut(ctx, repo, "worktree", "remove", "--force", "--force", root); err != nil {
			return "", err
		}
		if _, err := gitOut(ctx, repo, "branch", "-D", BranchOf(forkID)); err != nil && !strings.Contains(err.Error(), "not found") {
			return root, err
		}
	}
	if err := os.RemoveAll(root); err != nil {
		return "", fmt.Errorf("remove fork folder %s: %w", root, err)
	}
	return root, nil
}

// IsWorktree: root's .git is a file (a linked git worktree), not a folder.
func IsWorktree(root string) bool {
	fi, err := os.Lstat(filepath.Join(root, ".git"))
	return err == nil && fi.Mode().IsRegular()
}

// Orphan is a fork folder whose session is gone.
type Orphan struct {
	ForkID string `json:"fork_id"`
	Folder string `json:"folder"`
	Bytes  int64  `json:"bytes"`
	Branch string `json:"branch"` // "" when not a git worktree
}

// Orphans lists the folders under forksDir whose fork session no longer
// exists, with their disk use, largest first.
func Orphans(ctx context.Context, db *store.DB, forksDir string) ([]Orphan, error) {
	ents, err := os.ReadDir(forksDir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Orphan{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list fork folders: %w", err)
	}
	out := []Orphan{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := db.GetSession(ctx, e.Name()); err == nil {
			continue
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		o := Orphan{ForkID: e.Name(), Folder: filepath.Join(forksDir, e.Name()), Bytes: DiskUse(filepath.Join(forksDir, e.Name()))}
		if IsWorktree(o.Folder) {
			o.Branch = BranchOf(e.Name())
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Bytes > out[j].Bytes })
	return out, nil
}

// DiskUse is the bytes of the files below dir (links not followed).
func DiskUse(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
