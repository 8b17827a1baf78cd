package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// hunkFlags are `sessions changes --hunks` and `sessions revert --seq SEQ
// --path PATH --hunk N`.
type hunkFlags struct {
	hunks bool
	seq   string
	path  string
	hunk  string

	seqN  int64
	hunkN int
}

func (f *hunkFlags) changesFlags(fs *flag.FlagSet) {
	fs.BoolVar(&f.hunks, "hunks", false, "one line per hunk (unified diff, 3 lines of context)")
}

func (f *hunkFlags) revertFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.seq, "seq", "", "the row whose change holds the hunk")
	fs.StringVar(&f.path, "path", "", "the file")
	fs.StringVar(&f.hunk, "hunk", "", "the hunk's number within that row and file, from 1")
}

func (f *hunkFlags) checkRevert() error {
	if f.seq == "" || f.path == "" || f.hunk == "" {
		return sessUsagef("revert needs --seq SEQ --path PATH --hunk N")
	}
	n, err := strconv.ParseInt(f.seq, 10, 64)
	if err != nil || n < 1 {
		return sessUsagef("--seq %q: want a row number", f.seq)
	}
	h, err := strconv.Atoi(f.hunk)
	if err != nil || h < 1 {
		return sessUsagef("--hunk %q: want a hunk number from 1", f.hunk)
	}
	f.seqN, f.hunkN = n, h
	return nil
}

// hunks prints every hunk of the session's changes: JSON Lines with
// --json, else the patches under a header each.
func (c *sessCmd) hunks(ctx context.Context, db *store.DB, id string) error {
	list, err := recorded(ctx, db, func(rec *checkpoint.Recorder) ([]checkpoint.Hunk, error) { return rec.Hunks(ctx, id) })
	if err != nil {
		return err
	}
	for _, h := range list {
		if c.json {
			err = sessJSONLine(c.stdout, h)
		} else {
			_, err = fmt.Fprintf(c.stdout, "row %d %s hunk %d (%s)\n%s", h.Seq, sessClean(h.Path), h.Hunk, h.State, patchClean(h.Patch))
		}
		if err != nil {
			return err
		}
	}
	if len(list) == 0 && !c.json {
		_, err = fmt.Fprintf(c.stdout, "session %s changed no text file\n", id)
	}
	return err
}

// revert reverts one hunk. A conflict is an error (exit 1) naming the lines.
func (c *sessCmd) revert(ctx context.Context, db *store.DB, id string) error {
	res, err := recorded(ctx, db, func(rec *checkpoint.Recorder) (checkpoint.RevertedHunk, error) {
		return rec.RevertHunk(ctx, id, c.hk.seqN, c.hk.path, c.hk.hunkN, "")
	})
	if err != nil {
		return err
	}
	h := res.Hunk
	type ref struct {
		Seq  int64  `json:"seq"`
		Path string `json:"path"`
		Hunk int    `json:"hunk"`
	}
	return c.emit(struct {
		Reverted ref `json:"reverted"`
	}{ref{h.Seq, h.Path, h.Hunk}}, fmt.Sprintf("reverted hunk %d of %s from row %d (now lines %d-%d); note row %d tells the model\n",
		h.Hunk, sessClean(h.Path), h.Seq, res.FromLine, res.ToLine, res.NoteSeq))
}

// patchClean keeps a patch's lines and tabs but drops other control
// characters (a file's escape sequences must not drive the terminal).
func patchClean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
