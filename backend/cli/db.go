package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/store"
)

const dbUsage = `usage: loopdesk db check [--db PATH] [--json]
       loopdesk db recover OUT.db [--db PATH] [--json]
       loopdesk db backup PATH [--db PATH]
       loopdesk db restore PATH [--db PATH]
`

// DB is `loopdesk db`: the database file itself. check lists every problem (JSON Lines with
// --json; exit 1 when there is one), recover copies what is readable into a new file, backup
// copies it with SQLite's online backup, restore puts a backup in its place. None of them
// writes to the database they read; only restore replaces it, and never while it is in use.
func DB(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var dbFlag string
	var asJSON bool
	fs := flag.NewFlagSet("loopdesk db", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&dbFlag, "db", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	rest, err := parseInterspersed(fs, args)
	if err == nil {
		err = dbArgs(rest, asJSON)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk db: %v\n\n%s", err, dbUsage)
		return ExitUsage
	}
	path, err := inboxDB(dbFlag, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk db: %v\n", err)
		return ExitOther
	}
	var code int
	switch rest[0] {
	case "check":
		code, err = dbCheck(ctx, path, asJSON, stdout)
	case "recover":
		code, err = dbRecover(ctx, path, rest[1], asJSON, stdout)
	case "backup":
		code, err = dbBackup(ctx, path, rest[1], stdout)
	case "restore":
		code, err = dbRestore(ctx, path, rest[1], stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk db %s: %v\n", rest[0], err)
		return ExitOther
	}
	return code
}

func dbArgs(rest []string, asJSON bool) error {
	if len(rest) == 0 {
		return errors.New("which one: check, recover, backup or restore")
	}
	want := map[string]int{"check": 1, "recover": 2, "backup": 2, "restore": 2}
	n, ok := want[rest[0]]
	switch {
	case !ok:
		return fmt.Errorf("unknown subcommand %q", rest[0])
	case len(rest) != n && n == 1:
		return fmt.Errorf("check takes no argument, got %q", strings.Join(rest[1:], " "))
	case len(rest) != n:
		return fmt.Errorf("%s takes one PATH", rest[0])
	case asJSON && (rest[0] == "backup" || rest[0] == "restore"):
		return fmt.Errorf("%s has no --json", rest[0])
	}
	return nil
}

// dbCheck prints every problem: JSON Lines {"problem","session_id","seq","detail"}, or one
// line each for a person. Exit 1 when there is one.
func dbCheck(ctx context.Context, path string, asJSON bool, w io.Writer) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return ExitOther, fmt.Errorf("no database at %s", path)
	}
	problems, err := store.Check(ctx, path)
	if err != nil {
		return ExitOther, err
	}
	for _, p := range problems {
		if asJSON {
			b, _ := json.Marshal(p)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		fmt.Fprintln(w, problemLine(p))
	}
	if len(problems) > 0 {
		if !asJSON {
			fmt.Fprintf(w, "%s: %d problem(s); `loopdesk db recover OUT.db` copies everything readable into a new file\n", path, len(problems))
		}
		return ExitOther, nil
	}
	if !asJSON {
		fmt.Fprintf(w, "%s: no problem found\n", path)
	}
	return ExitOK, nil
}

func problemLine(p store.Problem) string {
	where := ""
	switch {
	case p.SessionID != "" && p.Seq > 0:
		where = fmt.Sprintf("session %s row %d: ", p.SessionID, p.Seq)
	case p.SessionID != "":
		where = fmt.Sprintf("session %s: ", p.SessionID)
	}
	return fmt.Sprintf("%s: %s%s", p.Problem, where, p.Detail)
}

// dbRecover copies everything readable into out and says what it could not save: the report
// as one JSON object with --json. Exit 0 when everything was saved, 1 when something was not.
func dbRecover(ctx context.Context, path, out string, asJSON bool, w io.Writer) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return ExitOther, fmt.Errorf("no database at %s", path)
	}
	rep, err := store.Recover(ctx, path, out)
	if err != nil {
		return ExitOther, err
	}
	if asJSON {
		if rep.NotSaved == nil {
			rep.NotSaved = []store.Problem{}
		}
		b, _ := json.Marshal(rep)
		fmt.Fprintf(w, "%s\n", b)
	} else {
		fmt.Fprintf(w, "recovered %d session(s) (%d whole) and %d row(s) into %s\n", rep.Sessions, rep.Whole, rep.Rows, out)
		for _, p := range rep.NotSaved {
			fmt.Fprintln(w, problemLine(p))
		}
		if len(rep.NotSaved) == 0 {
			fmt.Fprintln(w, "nothing was lost")
		} else {
			fmt.Fprintf(w, "%s is untouched; open the copy with LOOPDESK_DB=%s loopdesk\n", path, out)
		}
	}
	if len(rep.NotSaved) > 0 {
		return ExitOther, nil
	}
	return ExitOK, nil
}

// dbBackup writes a checked copy. A damaged database is still copied (as evidence, before
// anything is tried on it), and the copy's problems make the exit 1.
func dbBackup(ctx context.Context, path, dst string, w io.Writer) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return ExitOther, fmt.Errorf("no database at %s", path)
	}
	problems, err := store.Backup(ctx, path, dst)
	if err != nil {
		return ExitOther, err
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "backed up %s to %s, with its damage: %d problem(s), the first: %s\n", path, dst, len(problems), problemLine(problems[0]))
		return ExitOther, nil
	}
	fmt.Fprintf(w, "backed up %s to %s (checked)\n", path, dst)
	return ExitOK, nil
}

// dbRestore refuses while a window (its inbox socket answers) or any process has the file
// open; the current file is kept as PATH.before-restore.
func dbRestore(ctx context.Context, path, backup string, w io.Writer) (int, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // the processes holding it name it by its absolute path
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // the processes holding it name it by its absolute path
	}
	holders := store.LockHolders(path)
	if _, err := inbox.List(ctx, path); err == nil {
		holders = append([]string{"a Loopdesk window"}, holders...)
	}
	if err := store.Restore(ctx, backup, path, holders); err != nil {
		return ExitOther, err
	}
	fmt.Fprintf(w, "restored %s from %s; the file it replaced is %s.before-restore\n", path, backup, path)
	return ExitOK, nil
}

// refuseDamaged is the gate every command but `db` passes before it runs: a database that
// Open would refuse stops it with exit 1 and the same message, whichever command it was.
func refuseDamaged(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) bool {
	path := dbFlagOf(args)
	if path == "" {
		path = getenv("LOOPDESK_DB")
	}
	if path == "" {
		var err error
		if path, err = store.DefaultPathOnly(); err != nil {
			return false // the command reports it
		}
	}
	var de *store.DamagedError
	if err := store.CheckFile(ctx, path); errors.As(err, &de) {
		fmt.Fprintf(stderr, "loopdesk: %v\n", de)
		return true
	}
	return false
}

// dbFlagOf finds the value of --db (or -db, --db=PATH) among a command's arguments.
func dbFlagOf(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, name := range []string{"--db", "-db"} {
			if a == name && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				return v
			}
		}
	}
	return ""
}
