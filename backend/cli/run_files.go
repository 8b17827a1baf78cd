package cli

import (
	"fmt"
	"io"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
)

// runFiles is what a run changed in the folder, from the files_changed events of its session
// and of the child sessions its task calls started (the same folder): each path once, with its
// net change, for the list the human output ends with.
type runFiles struct {
	order []string
	net   map[string]checkpoint.ChangeKind
	by    map[string]checkpoint.ChangeAuthor
}

func (f *runFiles) add(changes []checkpoint.Change) {
	if f.net == nil {
		f.net, f.by = map[string]checkpoint.ChangeKind{}, map[string]checkpoint.ChangeAuthor{}
	}
	for _, c := range changes {
		if e := entryOf(c); e != nil && e.Kind == checkpoint.KindDir {
			continue // a folder's files are listed themselves
		}
		prev, seen := f.net[c.Path]
		if !seen {
			f.order = append(f.order, c.Path)
			f.net[c.Path] = c.Change
		} else {
			f.net[c.Path] = netChange(prev, c.Change)
		}
		f.by[c.Path] = c.By
	}
}

// entryOf is the path's state after the change, or before it for a deletion (nil when the
// event did not carry it).
func entryOf(c checkpoint.Change) *checkpoint.Entry {
	if c.After != nil {
		return c.After
	}
	return c.Before
}

// netChange is what two changes of one path in a row amount to; "" when nothing is left to
// show (a file made and removed again).
func netChange(prev, next checkpoint.ChangeKind) checkpoint.ChangeKind {
	switch {
	case prev == checkpoint.Created && next == checkpoint.Deleted:
		return ""
	case prev == checkpoint.Created:
		return checkpoint.Created
	case prev == checkpoint.Deleted && next == checkpoint.Created:
		return checkpoint.Modified
	case prev == checkpoint.Modified && next == checkpoint.ModeOnly:
		return checkpoint.Modified
	}
	return next
}

// write prints the list, one path a line, naming changes made by anyone but the agent; nothing
// when the run changed no file.
func (f *runFiles) write(w io.Writer) {
	var lines []string
	for _, path := range f.order {
		kind := f.net[path]
		if kind == "" {
			continue
		}
		line := fmt.Sprintf("  %-8s %s", kind, sessClean(path))
		if by := f.by[path]; by != checkpoint.ByAgent && by != "" {
			line += " (" + string(by) + ")"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "files changed (%d):\n", len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
