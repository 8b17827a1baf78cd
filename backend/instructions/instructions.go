// Package instructions reads the project instructions a run's system prompt carries: the
// personal $XDG_CONFIG_HOME/loopdesk/AGENTS.md and the folder's AGENTS.md (the file most
// coding agents share), in that order.
//
// Contract:
//   - Load reads both files afresh on every call (a file changed between runs is picked up
//     by the next run); a missing file is simply absent, any other read error is returned.
//   - A file over MaxBytes is cut at MaxBytes (on a UTF-8 boundary) and marked Truncated;
//     the text the model gets says so, and the window shows a warning.
//   - SHA256 is the hash of the bytes read from disk (the whole file), so the run row
//     records exactly which version was used.
//   - Compose appends the files to the base system prompt, personal first. They are part of
//     the system prompt, not of the history, so compaction never drops them.
package instructions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// FileName is the name looked for in the folder and in the config directory.
const FileName = "AGENTS.md"

// MaxBytes is the most of one file a run carries (64 KiB).
const MaxBytes = 64 << 10

// Scope says where a file comes from.
type Scope string

// Scopes, in the order they are composed.
const (
	ScopePersonal Scope = "personal"
	ScopeFolder   Scope = "folder"
)

// File is one instruction file as read for a run.
type File struct {
	Scope     Scope  `json:"scope"`
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	Bytes     int64  `json:"bytes"` // size on disk
	Truncated bool   `json:"truncated"`
	Content   string `json:"content"` // what the model gets (cut when Truncated)
}

// Load reads the personal file (personalDir/AGENTS.md; personalDir "" skips it) and the
// folder's (workspace/AGENTS.md), personal first. Missing files are left out.
func Load(personalDir, workspace string) ([]File, error) {
	var out []File
	for _, c := range []struct {
		scope Scope
		dir   string
	}{{ScopePersonal, personalDir}, {ScopeFolder, workspace}} {
		if c.dir == "" {
			continue
		}
		f, ok, err := read(c.scope, filepath.Join(c.dir, FileName))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}

func read(scope Scope, path string) (File, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, false, nil
	}
	if err != nil {
		return File{}, false, fmt.Errorf("read instructions %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	f := File{Scope: scope, Path: path, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b))}
	if len(b) > MaxBytes {
		n := MaxBytes
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		b, f.Truncated = b[:n], true
	}
	f.Content = string(b)
	return f, true, nil
}

// Warning is the line shown (and sent) for a cut file; "" when f is whole.
func (f File) Warning() string {
	if !f.Truncated {
		return ""
	}
	return fmt.Sprintf("%s is %d bytes; only the first %d KiB were used", f.Path, f.Bytes, MaxBytes>>10)
}

// Compose appends files to base: each under a heading naming its path, with a note where a
// file was cut. The result is the run's system prompt.
func Compose(base string, files []File) string {
	if len(files) == 0 {
		return base
	}
	var b strings.Builder
	b.WriteString(base)
	for _, f := range files {
		what := "The folder's project instructions"
		if f.Scope == ScopePersonal {
			what = "The person's own instructions"
		}
		fmt.Fprintf(&b, "\n\n# %s (%s)\n\n%s", what, f.Path, strings.TrimRight(f.Content, "\n"))
		if w := f.Warning(); w != "" {
			fmt.Fprintf(&b, "\n\n[loopdesk] Warning: %s.", w)
		}
	}
	return b.String()
}
