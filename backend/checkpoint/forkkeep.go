package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// KeepReason says why the fork folder root (ForksDir/<fork id>) must outlive its session: work
// in it that is neither committed nor brought back to the folder it was forked from. "" means
// removing it loses nothing.
//
//   - A git worktree: a path `git status` lists whose content differs from the same path in
//     the repository's main checkout (the parent's changes applied at fork time, and changes
//     brought back with ApplyFork, are the same there), or commits on its branch that no
//     other branch has.
//   - A copy: a file whose content differs from the same file in parentFolder, the folder the
//     copy was made from ("" when that session is gone: then nothing can be compared, and
//     the folder is kept).
//
// A folder already gone is "".
func KeepReason(ctx context.Context, root, parentFolder string) (string, error) {
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if IsWorktree(root) {
		return worktreeKeepReason(ctx, root)
	}
	if parentFolder == "" {
		return "the session it was forked from is gone, so whether its changes were brought back cannot be told", nil
	}
	var differ []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() || len(differ) >= 3 {
			return nil
		}
		same, err := sameEntry(p, filepath.Join(parentFolder, rel))
		if err != nil {
			return err
		}
		if !same {
			differ = append(differ, rel)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("compare fork folder %s with %s: %w", root, parentFolder, err)
	}
	if len(differ) > 0 {
		return "changes not brought back to " + parentFolder + ": " + strings.Join(differ, ", "), nil
	}
	return "", nil
}

func worktreeKeepReason(ctx context.Context, root string) (string, error) {
	common, err := gitOut(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	repo := filepath.Dir(strings.TrimSpace(common))
	// What differs from the branch's commit, and what git does not track (ignored files aside).
	changed, err := gitOut(ctx, root, "diff", "--name-only", "--no-renames", "-z", "HEAD")
	if err != nil {
		return "", err
	}
	untracked, err := gitOut(ctx, root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", err
	}
	var differ []string
	for _, path := range strings.Split(changed+"\x00"+untracked, "\x00") {
		if path == "" {
			continue
		}
		same, err := sameEntry(filepath.Join(root, path), filepath.Join(repo, path))
		if err != nil {
			return "", err
		}
		if !same {
			differ = append(differ, path)
		}
	}
	var reasons []string
	if n := len(differ); n > 0 {
		if n > 3 {
			differ = append(differ[:3], fmt.Sprintf("and %d more", n-3))
		}
		reasons = append(reasons, fmt.Sprintf("%d uncommitted change%s not brought back: %s", n, plural(n), strings.Join(differ, ", ")))
	}
	// --exclude names a branch as --branches matches it: without refs/heads/.
	branch := BranchOf(filepath.Base(root))
	if out, err := gitOut(ctx, repo, "rev-list", "--count", "refs/heads/"+branch, "--not", "--exclude="+branch, "--branches"); err == nil {
		if n, _ := strconv.Atoi(strings.TrimSpace(out)); n > 0 {
			reasons = append(reasons, fmt.Sprintf("%d commit%s on %s not merged into another branch", n, plural(n), branch))
		}
	}
	return strings.Join(reasons, "; "), nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sameEntry: a and b are both absent, or the same kind with the same content (a link's
// target, a file's bytes; folders are the same as folders).
func sameEntry(a, b string) (bool, error) {
	fa, errA := os.Lstat(a)
	fb, errB := os.Lstat(b)
	if errors.Is(errA, fs.ErrNotExist) || errors.Is(errB, fs.ErrNotExist) {
		return errors.Is(errA, fs.ErrNotExist) && errors.Is(errB, fs.ErrNotExist), nil
	}
	if errA != nil {
		return false, errA
	}
	if errB != nil {
		return false, errB
	}
	switch {
	case fa.Mode().Type() != fb.Mode().Type():
		return false, nil
	case fa.IsDir():
		return true, nil
	case fa.Mode()&fs.ModeSymlink != 0:
		ta, _ := os.Readlink(a)
		tb, _ := os.Readlink(b)
		return ta == tb, nil
	case fa.Size() != fb.Size():
		return false, nil
	}
	return sameBytes(a, b)
}

func sameBytes(a, b string) (bool, error) {
	ra, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer ra.Close()
	rb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer rb.Close()
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(ra, bufA)
		nb, errB := io.ReadFull(rb, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		if errA == io.EOF || errA == io.ErrUnexpectedEOF {
			return errB == io.EOF || errB == io.ErrUnexpectedEOF, nil
		}
		if errA != nil {
			return false, errA
		}
		if errB != nil {
			return false, errB
		}
	}
}
