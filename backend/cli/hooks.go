package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/store"
)

const hooksUsage = `usage: loopdesk hooks list [--json] [--workspace DIR] [--db PATH]
       loopdesk hooks trust [--workspace DIR] [--db PATH]

list prints every hook that applies in the folder: the personal ones
($XDG_CONFIG_HOME/loopdesk/hooks.json) and the project ones (.loopdesk/hooks.json
and the "hooks" key of .claude/settings.json), with whether they are trusted.
Project hooks run only once trusted; trust keeps the sha256 of their
configuration, so any edit makes them untrusted again. trust trusts the folder's
current project hooks. See docs/hooks.md.

flags:
  --json            one JSON object per hook and line:
                    {"event","matcher","command","source","trusted","sha256"}
` + folderFlagsUsage

// HookListEntry is one line of `loopdesk hooks list --json`, a contract scripts rely on.
// source is "personal" or "project"; sha256 is the hash of the folder's project hook
// configuration ("" for personal hooks, which are always trusted).
type HookListEntry struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	Source  string `json:"source"`
	Trusted bool   `json:"trusted"`
	SHA256  string `json:"sha256"`
}

// Hooks runs `loopdesk hooks ARGS...`: 0 success, 1 an error (a bad hook file, no project
// hooks to trust, a database problem), 2 a usage error.
func Hooks(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if code, asked := helpAsked(args, hooksUsage, stdout, stderr); asked {
		return code
	}
	if args[0] != "list" && args[0] != "trust" {
		fmt.Fprintf(stderr, "loopdesk hooks: unknown command %q\n\n%s", args[0], hooksUsage)
		return ExitUsage
	}
	var f folderFlags
	fs := f.flagSet("loopdesk hooks " + args[0])
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 || (args[0] == "trust" && f.json) {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", strings.Join(fs.Args(), " "))
		}
		fmt.Fprintf(stderr, "loopdesk hooks %s: %v\n\n%s", args[0], err, hooksUsage)
		return ExitUsage
	}
	var err error
	if args[0] == "list" {
		err = hooksList(ctx, f.workspace, f.db, f.json, getenv, stdout, stderr)
	} else {
		err = hooksTrust(ctx, f.workspace, f.db, getenv, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk hooks %s: %v\n", args[0], err)
		return ExitOther
	}
	return ExitOK
}

// trustKeeper is the hooks' trust kept in db; nil (no database yet) is no trust at all.
func trustKeeper(db *store.DB) hooks.TrustKeeper {
	if db == nil {
		return noTrust{}
	}
	return db
}

// trustDB opens the database the person's trust is kept in (--db, else $LOOPDESK_DB, else the
// default path). For reading only (create false) a missing file gives a nil *store.DB: no
// trust at all rather than a new empty database.
func trustDB(ctx context.Context, path string, getenv func(string) string, create bool) (*store.DB, func(), error) {
	if path == "" {
		path = getenv("LOOPDESK_DB")
	}
	if path == "" {
		var err error
		if path, err = store.DefaultPath(); err != nil {
			return nil, nil, err
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && !create {
		return nil, func() {}, nil
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// hooksEngine is the hooks engine of a command-line front end: untrusted project hooks are
// skipped, and it says so on stderr once per folder and configuration.
func hooksEngine(personalDir string, stderr io.Writer, cmd string) *hooks.Engine {
	return &hooks.Engine{PersonalDir: personalDir, OnSkipped: func(ws string, skipped []hooks.Hook) {
		fmt.Fprintf(stderr, "%s: %d project hook(s) of %s skipped: not trusted (review them with "+
			"`loopdesk hooks list`, then `loopdesk hooks trust`)\n", cmd, len(skipped), ws)
	}}
}

// noTrust is the trust of a database that does not exist yet: none.
type noTrust struct{}

func (noTrust) HookTrustOf(_ context.Context, ws string) (store.HookTrust, error) {
	return store.HookTrust{}, fmt.Errorf("hook trust of %s: %w", ws, store.ErrNotFound)
}

func (noTrust) TrustHooks(context.Context, string, string, string) (store.HookTrust, error) {
	return store.HookTrust{}, errors.New("no database")
}

// listed is what a list command of hooks or skills reads: the folder (dir, default the
// current folder, symbolic links resolved), the person's config folder, and the database
// trust is kept in, for reading (see trustDB: nil when there is none yet); done closes it.
func listed(ctx context.Context, dir, dbPath string, getenv func(string) string) (folder, personal string, db *store.DB, done func(), err error) {
	if folder, err = hooksFolder(dir); err != nil {
		return "", "", nil, nil, err
	}
	if personal, err = config.ConfigDir(); err != nil {
		return "", "", nil, nil, err
	}
	db, done, err = trustDB(ctx, dbPath, getenv, false)
	return folder, personal, db, done, err
}

func hooksFolder(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	return hooks.Folder(dir)
}

func hooksList(ctx context.Context, dir, dbPath string, asJSON bool, getenv func(string) string, stdout, stderr io.Writer) error {
	folder, personal, db, done, err := listed(ctx, dir, dbPath, getenv)
	if err != nil {
		return err
	}
	defer done()
	cfg, errs := hooks.Load(personal, folder)
	st, more := hooks.State(ctx, trustKeeper(db), folder)
	for _, e := range append(errs, more...) {
		fmt.Fprintf(stderr, "loopdesk hooks list: %v\n", e)
	}
	entries := make([]HookListEntry, 0, len(cfg.Hooks))
	for _, h := range cfg.Hooks {
		e := HookListEntry{Event: string(h.Event), Matcher: h.Matcher, Command: h.Command, Source: string(h.Source), Trusted: true}
		if h.Source == hooks.Project {
			e.Trusted, e.SHA256 = st.Trusted, st.SHA256
		}
		entries = append(entries, e)
	}
	if asJSON {
		return jsonLines(stdout, entries)
	}
	return writeHooksTable(stdout, entries, st)
}

func writeHooksTable(w io.Writer, entries []HookListEntry, st hooks.TrustState) error {
	err := writeTable(w, entries, "no hooks configured (see docs/hooks.md)", "EVENT\tMATCHER\tSOURCE\tTRUSTED\tCOMMAND",
		func(e HookListEntry) []any { return []any{e.Event, e.Matcher, e.Source, e.Trusted, e.Command} })
	if err != nil || len(entries) == 0 {
		return err
	}
	if st.SHA256 != "" && !st.Trusted {
		fmt.Fprintf(w, "\nThe project hooks are not trusted and do not run. Review them, then: loopdesk hooks trust --workspace %s\n", st.Workspace)
		if st.Changed {
			fmt.Fprintf(w, "They changed since they were trusted:\n%s", st.Diff)
		}
	}
	return nil
}

func hooksTrust(ctx context.Context, dir, dbPath string, getenv func(string) string, stdout io.Writer) error {
	folder, err := hooksFolder(dir)
	if err != nil {
		return err
	}
	db, done, err := trustDB(ctx, dbPath, getenv, true)
	if err != nil {
		return err
	}
	defer done()
	st, err := hooks.Trust(ctx, db, folder, "")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trusted %d project hook(s) of %s (sha256 %s)\n", len(st.Hooks), st.Workspace, st.SHA256)
	return nil
}
