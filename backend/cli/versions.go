package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/loopdesk/loopdesk/backend/chat"
)

const versionsUsage = `usage: loopdesk sessions regenerate SESSION [--row N] [--restore-files] [run's flags]
       loopdesk sessions edit SESSION --row N --text TEXT [--restore-files] [run's flags]
       loopdesk sessions retry SESSION [run's flags]

regenerate  fork the session just before the run that made the reply at row N (default: the
            last reply), keeping the message it answered, and run again in the fork
edit        fork the session just before your message at row N and send TEXT in its place
            in the fork
retry       run the session again from its stored rows, in the same session, after a run
            that ended in a provider error, a timeout, an error, a cancel or an interruption

The original session keeps its rows. The run's events and exit status are those of
loopdesk run; run_started.session_id names the session the run is in (the fork's, for
regenerate and edit). Every flag of loopdesk run but --session and --image applies (see
loopdesk run --help): --model, --provider, --approve, the limits, --json, ...

Files: the rows a fork abandons may have changed files in the folder. By default they are
kept as they are and the new run's first request names them; --restore-files restores them
to before the branch point first (a restore row of the original session), and fails, forking
nothing, when a file changed since by someone else.
`

// versionFlags are the session controls' own flags.
type versionFlags struct {
	row     int64
	text    string
	textSet bool
	restore bool
}

func (v *versionFlags) register(name string) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		if name == "retry" {
			return
		}
		fs.Func("row", "", func(s string) error {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				return fmt.Errorf("want a row number, got %q", s)
			}
			v.row = n
			return nil
		})
		fs.BoolVar(&v.restore, "restore-files", false, "")
		if name == "edit" {
			fs.Func("text", "", func(s string) error { v.text, v.textSet = s, true; return nil })
		}
	}
}

// sessionsVersion runs `loopdesk sessions regenerate|edit|retry ARGS...` with run's flag
// parsing, output and exit statuses.
func sessionsVersion(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	prefix := "loopdesk sessions " + name
	var v versionFlags
	o, words, err := runParseFlags(prefix, args, stderr, versionsUsage, v.register(name))
	if err == nil {
		err = versionCheck(name, o, words, v)
	}
	if errors.Is(err, flag.ErrHelp) {
		return runExitUsage
	}
	var ue runUsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %s\n\n%s", prefix, ue.msg, versionsUsage)
		return runExitUsage
	}
	files := chat.FilesKeep
	if v.restore {
		files = chat.FilesRestore
	}
	start := func(ctx context.Context, svc *chat.Service, sessionID string, r chat.Run) (string, string, error) {
		switch name {
		case "retry":
			runID, err := svc.Retry(ctx, sessionID, r)
			return sessionID, runID, err
		case "edit":
			f, err := svc.Edit(ctx, sessionID, v.row, v.text, files, r)
			return f.Session.ID, f.RunID, err
		}
		f, err := svc.Regenerate(ctx, sessionID, v.row, files, r)
		return f.Session.ID, f.RunID, err
	}
	code, err := runAgentWith(ctx, o, start, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	}
	return code
}

// versionCheck says what is wrong with a control's command line: one SESSION, a row and a
// text for edit, no prompt or image of its own.
func versionCheck(name string, o *runOptions, words []string, v versionFlags) error {
	switch {
	case len(words) != 1:
		return runUsageError{fmt.Sprintf("%s needs exactly one SESSION, got %d arguments", name, len(words))}
	case o.session != "":
		return runUsageError{"--session: the SESSION argument names the session"}
	case len(o.images) > 0:
		return runUsageError{"--image: a " + name + " sends no new prompt"}
	case name == "edit" && v.row == 0:
		return runUsageError{"edit needs --row N (the row of your message)"}
	case name == "edit" && !v.textSet:
		return runUsageError{"edit needs --text TEXT (the new message)"}
	}
	o.session = words[0]
	return nil
}
