package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Kind is what a tracked path is.
type Kind string

const (
	KindFile Kind = "file"
	KindDir  Kind = "dir"
	KindLink Kind = "link"
)

// Entry is the recorded state of one tracked path. Only Kind, Mode, Size,
// SHA256, Target and Stored describe content; the stat fields let a later
// scan skip reading a file whose stat did not change.
type Entry struct {
	Kind   Kind        `json:"kind"`
	Mode   fs.FileMode `json:"mode"` // permission, setuid, setgid and sticky bits
	Size   int64       `json:"size"`
	SHA256 string      `json:"sha256,omitempty"` // files: hex sha256 of the content
	Target string      `json:"target,omitempty"` // links: the target, as written
	// Stored: the content is in the blob store (false for files over
	// MaxContent, and for contents an import did not carry).
	Stored bool `json:"stored"`

	MtimeNS int64  `json:"-"`
	CtimeNS int64  `json:"-"`
	Ino     uint64 `json:"-"`
}

const modeMask = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// ChangeKind is what happened to a path in one call.
type ChangeKind string

const (
	Created  ChangeKind = "created"
	Modified ChangeKind = "modified" // content, link target or kind (file <-> folder); mode may change too
	Deleted  ChangeKind = "deleted"
	ModeOnly ChangeKind = "mode" // permissions only
)

// diff classifies the change from old to new (nil = absent). ok is false
// when nothing a person would call a change happened: a file deleted and
// re-created with the same content and mode is no change.
func diff(old, new *Entry) (ChangeKind, bool) {
	switch {
	case old == nil && new == nil:
		return "", false
	case old == nil:
		return Created, true
	case new == nil:
		return Deleted, true
	case old.Kind != new.Kind:
		return Modified, true
	case old.Kind == KindFile && old.SHA256 != new.SHA256:
		return Modified, true
	case old.Kind == KindLink && old.Target != new.Target:
		return Modified, true
	case old.Kind != KindLink && old.Mode != new.Mode:
		return ModeOnly, true
	}
	return "", false
}

// sameContent: a restore may treat the path as untouched since it was recorded.
func sameContent(a, b *Entry) bool {
	_, changed := diff(a, b)
	return !changed
}

// sameStat: the file can be assumed unchanged without reading it. ctime
// moves on every write, chmod and rename, and cannot be set by a program,
// so a tool that restores mtime after writing is still caught.
func sameStat(a, b *Entry) bool {
	return a != nil && b != nil && a.Kind == b.Kind && a.Mode == b.Mode && a.Size == b.Size &&
		a.MtimeNS == b.MtimeNS && a.CtimeNS == b.CtimeNS && a.Ino == b.Ino && a.Target == b.Target
}

// statEntry makes an Entry from an lstat result, without content. It
// returns nil for what is not tracked (sockets, pipes, devices).
func statEntry(fi fs.FileInfo) *Entry {
	e := &Entry{Mode: fi.Mode() & modeMask, Size: fi.Size()}
	switch {
	case fi.Mode().IsRegular():
		e.Kind = KindFile
	case fi.IsDir():
		e.Kind, e.Size = KindDir, 0
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Kind, e.Mode = KindLink, 0
	default:
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.MtimeNS = st.Mtim.Nano()
		e.CtimeNS = st.Ctim.Nano()
		e.Ino = st.Ino
	}
	return e
}

// readEntry completes a stat Entry with its content: a file's hash (and its
// bytes when at most max, for the blob store), a link's target.
func readEntry(root *os.Root, rel string, e *Entry, max int64) ([]byte, error) {
	switch e.Kind {
	case KindLink:
		t, err := root.Readlink(rel)
		e.Target = t
		return nil, err
	case KindDir:
		return nil, nil
	}
	if e.Size <= max {
		data, err := root.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) <= max {
			sum := sha256.Sum256(data)
			e.SHA256, e.Size, e.Stored = hex.EncodeToString(sum[:]), int64(len(data)), true
			return data, nil
		}
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	e.SHA256, e.Size, e.Stored = hex.EncodeToString(h.Sum(nil)), n, false
	return nil, err
}
