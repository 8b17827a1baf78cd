package checkpoint

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Sentinel errors; callers branch with errors.Is.
var (
	// ErrFolderGone: the session's folder was moved or deleted.
	ErrFolderGone = errors.New("the folder was moved or deleted")
	// ErrConflict: files changed since the session last recorded them;
	// the error is a *ConflictError naming them.
	ErrConflict = errors.New("files changed outside the session since")
	// ErrNoContent: a file's content was never stored (over MaxContent, or
	// an export without contents).
	ErrNoContent = errors.New("content not stored")
	// ErrCorrupt: a stored blob does not match its hash.
	ErrCorrupt = errors.New("stored content is damaged")
	// ErrBusy: the session is in the middle of a tool call.
	ErrBusy = errors.New("the session is running a tool call")
	// ErrNotFound: no pending capture, or no changes at or after the row.
	ErrNotFound = errors.New("not found")
	// ErrDestination: a fork's folder exists and is not empty.
	ErrDestination = errors.New("destination folder is not empty")
)

var errNotDir = syscall.ENOTDIR

// Conflict is a file whose content differs from what the session last
// recorded. By is "outside" (the person or another program) or
// "session <id> row <seq>" when another session sharing the folder made it.
type Conflict struct {
	Path string `json:"path"`
	By   string `json:"by"`
}

// ConflictError lists the files a restore would overwrite without being
// told to (RestoreOptions.Override). Nothing was changed.
type ConflictError struct{ Files []Conflict }

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: ", ErrConflict)
	for i, c := range e.Files {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (changed by %s)", c.Path, c.By)
	}
	b.WriteString("; nothing was restored (name them to overwrite)")
	return b.String()
}

func (e *ConflictError) Unwrap() error { return ErrConflict }
