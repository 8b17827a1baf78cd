package checkpoint

import "context"

// InRepository reports whether dir is inside a git repository (git can be
// run there and finds one): where MakeForkFolder makes a worktree rather
// than a full copy.
func InRepository(ctx context.Context, dir string) bool {
	_, err := gitOut(ctx, dir, "rev-parse", "--show-toplevel")
	return err == nil
}
