package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/store"
)

// cpFlags are the flags of `sessions changes`, `sessions restore` and
// `sessions export --contents`.
type cpFlags struct {
	to       string
	path     string
	dryRun   bool
	contents bool
	seq      int64
	force    []string // restore: conflicting files to overwrite
	forceAll bool     // restore: overwrite every conflicting file
}

func (f *cpFlags) restoreFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.to, "to", "", "restore to before this row")
	fs.StringVar(&f.path, "path", "", "restore only this path")
	fs.BoolVar(&f.dryRun, "dry-run", false, "list what would be restored, change nothing")
	fs.Func("force", "overwrite this conflicting file (repeatable)", func(p string) error {
		f.force = append(f.force, p)
		return nil
	})
	fs.BoolVar(&f.forceAll, "force-all", false, "overwrite every conflicting file")
}

func (f *cpFlags) exportFlags(fs *flag.FlagSet) {
	fs.BoolVar(&f.contents, "contents", false, "include the recorded file contents")
}

func (f *cpFlags) check() error {
	if f.to == "" {
		return sessUsagef("restore needs --to SEQ")
	}
	n, err := strconv.ParseInt(f.to, 10, 64)
	if err != nil || n < 1 {
		return sessUsagef("--to %q: want a row number", f.to)
	}
	f.seq = n
	return nil
}

// recorder is a checkpoint.Recorder for one command: no watcher (each
// command scans the folder once), and captures a killed run left pending
// linked first.
func recorder(ctx context.Context, db *store.DB) (*checkpoint.Recorder, error) {
	rec := checkpoint.New(db, checkpoint.Options{NoWatch: true})
	if _, err := rec.Recover(ctx); err != nil {
		rec.Close()
		return nil, err
	}
	return rec, nil
}

// recorded asks one command's recorder of db (see recorder) what ask wants, and closes it.
func recorded[T any](ctx context.Context, db *store.DB, ask func(*checkpoint.Recorder) (T, error)) (T, error) {
	rec, err := recorder(ctx, db)
	if err != nil {
		var zero T
		return zero, err
	}
	defer rec.Close()
	return ask(rec)
}

func (c *sessCmd) changes(ctx context.Context, db *store.DB, id string) error {
	list, err := recorded(ctx, db, func(rec *checkpoint.Recorder) ([]checkpoint.Change, error) { return rec.Changes(ctx, id) })
	if err != nil {
		return err
	}
	if c.json {
		return jsonLines(c.stdout, list)
	}
	return writeTable(c.stdout, list, fmt.Sprintf("session %s changed no files", id), "ROW\tCHANGE\tPATH\tSIZE", func(ch checkpoint.Change) []any {
		return []any{ch.Seq, ch.Change, sessClean(ch.Path), ch.Size}
	})
}

func (c *sessCmd) restore(ctx context.Context, db *store.DB, id string) error {
	opts := checkpoint.RestoreOptions{ToSeq: c.cp.seq, Path: c.cp.path, DryRun: c.cp.dryRun, Override: c.cp.force}
	p, err := recorded(ctx, db, func(rec *checkpoint.Recorder) (checkpoint.Plan, error) {
		if c.cp.forceAll {
			preview, err := rec.Restore(ctx, id, checkpoint.RestoreOptions{ToSeq: c.cp.seq, Path: c.cp.path, DryRun: true})
			if err != nil {
				return checkpoint.Plan{}, err
			}
			for _, cf := range preview.Conflicts {
				opts.Override = append(opts.Override, cf.Path)
			}
		}
		return rec.Restore(ctx, id, opts)
	})
	var conflict *checkpoint.ConflictError
	if errors.As(err, &conflict) {
		return restoreConflict{conflict}
	}
	if err != nil {
		return err
	}
	overwritten := overwrittenOf(p, opts.Override)
	if c.json {
		if err := sessJSONLine(c.stdout, struct {
			Restored    []checkpoint.Restored `json:"restored"`
			DryRun      bool                  `json:"dry_run"`
			Overwritten []string              `json:"overwritten"`
		}{p.Restored, p.DryRun, overwritten}); err != nil {
			return err
		}
	} else {
		verb := "restored"
		if p.DryRun {
			verb = "would restore"
		}
		fmt.Fprintf(c.stdout, "%s %d file(s) to their state before row %d:\n", verb, len(p.Restored), c.cp.seq)
		for _, r := range p.Restored {
			fmt.Fprintf(c.stdout, "  undo %-8s %s\n", r.Change, sessClean(r.Path))
		}
	}
	for _, o := range p.Others {
		fmt.Fprintf(c.stderr, "note: this undoes %s, changed by session %s at row %d\n", sessClean(o.Path), o.SessionID, o.Seq)
	}
	for _, u := range p.Unrestorable {
		fmt.Fprintf(c.stderr, "cannot bring back %s: its earlier content was not kept (over 10 MiB, or exported without contents); left as it is\n", sessClean(u))
	}
	for _, o := range overwritten {
		fmt.Fprintf(c.stderr, "overwrote %s, which had changed since the session last recorded it\n", sessClean(o))
	}
	if len(p.Conflicts) > 0 && len(overwritten) < len(p.Conflicts) { // a dry run: the real restore would refuse
		return restoreConflict{&checkpoint.ConflictError{Files: p.Conflicts}}
	}
	return nil
}

// overwrittenOf lists the conflicting files the restore overwrote (or, in a dry run, would):
// those named to overwrite. Never nil, so the JSON says [].
func overwrittenOf(p checkpoint.Plan, override []string) []string {
	out := []string{}
	for _, c := range p.Conflicts {
		if slices.Contains(override, c.Path) {
			out = append(out, c.Path)
		}
	}
	return out
}

// restoreConflict is a refused restore, worded for the command line: it names the flags that
// overwrite the conflicting files.
type restoreConflict struct{ err *checkpoint.ConflictError }

func (e restoreConflict) Error() string {
	var b strings.Builder
	b.WriteString("conflict: changed outside this session since it last recorded them: ")
	for i, c := range e.err.Files {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (changed by %s)", c.Path, c.By)
	}
	b.WriteString("; nothing was restored (overwrite them with --force PATH, repeatable, or --force-all)")
	return b.String()
}

func (e restoreConflict) Unwrap() error { return e.err }

// restoreSummary is the one-line view of a restore row for `sessions show`.
func restoreSummary(raw json.RawMessage) string {
	var p store.RestorePayload
	json.Unmarshal(raw, &p)
	paths := make([]string, 0, len(p.Restored))
	for _, r := range p.Restored {
		paths = append(paths, r.Path)
	}
	return fmt.Sprintf("restored %d file(s) to before row %d: %s", len(p.Restored), p.ToSeq, strings.Join(paths, ", "))
}
