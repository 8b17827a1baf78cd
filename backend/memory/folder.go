package memory

import (
	"fmt"
	"path/filepath"
)

// Folder is dir as project memories name their folder: absolute, with symbolic links
// resolved, as a run's workspace root is (tools.Workspace.Root), so a memory a run keeps and
// the memories a later run of the same folder carries meet whichever way the folder was
// named. A folder that does not exist (yet) is named by its absolute path.
func Folder(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("folder %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}
