package agents

import "path/filepath"

// root is one folder skills, commands or agent definitions are read from, and whether it is
// the project's (written by the repository) or the person's own.
type root struct {
	dir     string
	project bool
}

// roots is the one search order of every kind this package reads: the folder's own
// subfolders (projectDirs, nearest first), then the person's config folder's personalSub.
// folder or personalDir may be "" (left out).
func roots(personalDir, folder string, projectDirs []string, personalSub string) []root {
	var out []root
	if folder != "" {
		for _, d := range projectDirs {
			out = append(out, root{filepath.Join(folder, d), true})
		}
	}
	if personalDir != "" {
		out = append(out, root{filepath.Join(personalDir, personalSub), false})
	}
	return out
}
