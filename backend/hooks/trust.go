package hooks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// TrustState is what a folder's project hooks look like to the person right now.
type TrustState struct {
	Workspace string
	SHA256    string // of the current project configuration; "" when there is none
	Config    string // the current project configuration (Config.Text)
	Trusted   bool   // the person trusted exactly this configuration
	// Changed: the person trusted an earlier configuration of this folder; Diff shows the
	// difference (lines "- " removed, "+ " added, "  " kept).
	Changed bool
	Diff    string
	Hooks   []Hook // the project hooks
}

// TrustKeeper records trust (*store.DB).
type TrustKeeper interface {
	TrustStore
	TrustHooks(ctx context.Context, workspace, sha256, config string) (store.HookTrust, error)
}

// Folder is the form of a folder path trust is kept under: absolute, symbolic links
// resolved (as the runner's workspace root), so "." and the real path share one trust.
func Folder(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("hooks of folder %s: %w", dir, err)
	}
	return abs, nil
}

// State reads the folder's project hooks and compares them with the trust recorded.
func State(ctx context.Context, db TrustStore, workspace string) (TrustState, []error) {
	if f, err := Folder(workspace); err == nil {
		workspace = f
	}
	cfg, errs := Load("", workspace)
	st := TrustState{Workspace: workspace, SHA256: cfg.SHA256, Config: cfg.Text, Hooks: cfg.ProjectHooks()}
	if cfg.SHA256 == "" {
		return st, errs
	}
	t, err := db.HookTrustOf(ctx, workspace)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		errs = append(errs, err)
	case t.SHA256 == cfg.SHA256:
		st.Trusted = true
	default:
		st.Changed, st.Diff = true, LineDiff(t.Config, cfg.Text)
	}
	return st, errs
}

// Trust records the folder's current project hook configuration as trusted. sha256, when
// not "", must be the hash the person was shown: if the files changed since, nothing is
// trusted and the error says so (the person trusts what they saw, never what came after).
func Trust(ctx context.Context, db TrustKeeper, workspace, sha256 string) (TrustState, error) {
	workspace, err := Folder(workspace)
	if err != nil {
		return TrustState{}, err
	}
	cfg, errs := Load("", workspace)
	if len(errs) > 0 {
		return TrustState{}, fmt.Errorf("trust the hooks of %s: %w", workspace, errors.Join(errs...))
	}
	if cfg.SHA256 == "" {
		return TrustState{}, fmt.Errorf("trust the hooks of %s: the folder has no project hooks", workspace)
	}
	if sha256 != "" && sha256 != cfg.SHA256 {
		return TrustState{}, fmt.Errorf("trust the hooks of %s: the hooks changed since they were shown; review them again", workspace)
	}
	if _, err := db.TrustHooks(ctx, workspace, cfg.SHA256, cfg.Text); err != nil {
		return TrustState{}, err
	}
	return TrustState{Workspace: workspace, SHA256: cfg.SHA256, Config: cfg.Text, Trusted: true, Hooks: cfg.ProjectHooks()}, nil
}

// LineDiff is a line diff of two small texts (hook configurations): "- " lines only in a,
// "+ " lines only in b, "  " lines in both, in order (longest common subsequence).
func LineDiff(a, b string) string {
	x, y := strings.Split(strings.TrimRight(a, "\n"), "\n"), strings.Split(strings.TrimRight(b, "\n"), "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out.WriteString("  " + x[i] + "\n")
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + y[j] + "\n")
			j++
		default:
			out.WriteString("- " + x[i] + "\n")
			i++
		}
	}
	return out.String()
}
