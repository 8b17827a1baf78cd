package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

const inboxUsage = `usage: loopdesk inbox [--db PATH] [--json]
       loopdesk inbox dismiss RUN_ID [--db PATH]

inbox lists what waits for the person in the window that has the database open
and in every loopdesk run or loopdesk acp registered with it: each call waiting
for approval, oldest first, then the runs that ended in the last 24 hours and
were not dismissed. With no window open it lists the ended runs only. dismiss
takes an ended run off the list for good. Answer a call with loopdesk approve
or loopdesk deny.

flags:
  --json            one JSON object per entry and line:
                    {"kind": "approval"|"ended", "session_id", "session_title",
                     "parent_session_id", "run_id", "call_id", "tool", "arguments",
                     "waiting_ms", "origin": {"kind", "pid", "client"}, ...}
  --db PATH         database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
`

const approveUsage = `usage: loopdesk approve CALL_ID [--db PATH] [--session ID] [--always session|folder|everywhere]
       loopdesk deny CALL_ID [--db PATH] [--session ID] [--reason TEXT]

approve or deny a call waiting for approval, in whichever process holds it
(the window of the database, or a loopdesk run or loopdesk acp registered with
it); recorded as answered by person:inbox. The first answer wins: exit 1 when
no process holds the call or it was answered already.

flags:
  --session ID      the call's session (needed when two sessions wait on the same call id)
  --always SCOPE    approve, save an allow rule for the call's tool and command or
                    path in the session, the folder or everywhere, and approve every
                    other waiting call the rule matches
  --reason TEXT     deny: why, for the model
  --db PATH         database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
`

// InboxCommand runs `loopdesk inbox ARGS...`: 0 listed or dismissed, 1 an error, 2 bad input.
func InboxCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stdout, inboxUsage)
		return ExitOK
	}
	var dbFlag string
	var asJSON bool
	fs := flag.NewFlagSet("loopdesk inbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&dbFlag, "db", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	rest, err := parseInterspersed(fs, args)
	dismiss := len(rest) > 0 && rest[0] == "dismiss"
	switch {
	case err != nil:
	case dismiss && (len(rest) != 2 || asJSON || strings.TrimSpace(rest[1]) == ""):
		err = errors.New("dismiss takes one RUN_ID and --db")
	case !dismiss && len(rest) > 0:
		err = fmt.Errorf("unexpected argument %q", strings.Join(rest, " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk inbox: %v\n\n%s", err, inboxUsage)
		return ExitUsage
	}
	path, err := inboxDB(dbFlag, getenv)
	if err == nil {
		if dismiss {
			err = inboxDismiss(ctx, path, rest[1], stdout)
		} else {
			err = inboxList(ctx, path, asJSON, stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk inbox: %v\n", err)
		return ExitOther
	}
	return ExitOK
}

// inboxDB is the database path: --db, else $LOOPDESK_DB, else the default.
func inboxDB(flagPath string, getenv func(string) string) (string, error) {
	if flagPath != "" {
		return flagPath, nil
	}
	if p := getenv("LOOPDESK_DB"); p != "" {
		return p, nil
	}
	return store.DefaultPath()
}

// inboxList asks the window; with none open it reads the ended runs from the database.
func inboxList(ctx context.Context, path string, asJSON bool, w io.Writer) error {
	v, err := inbox.List(ctx, path)
	if errors.Is(err, inbox.ErrNoWindow) {
		v.Approvals, err = []inbox.Approval{}, nil
		var db *store.DB
		if db, err = store.Open(ctx, path); err != nil {
			return err
		}
		defer db.Close()
		v.Ended, err = inbox.EndedRuns(ctx, db)
	}
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, a := range v.Approvals {
			if err := enc.Encode(a); err != nil {
				return err
			}
		}
		for _, e := range v.Ended {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	}
	if len(v.Approvals)+len(v.Ended) == 0 {
		_, err := fmt.Fprintln(w, "nothing waits for you")
		return err
	}
	if len(v.Approvals) > 0 {
		if err := writeTable(w, v.Approvals, "", "CALL\tWAITING\tSESSION\tFROM\tTOOL\tARGUMENTS", func(a inbox.Approval) []any {
			return []any{a.CallID, time.Duration(a.WaitingMS) * time.Millisecond / time.Second * time.Second,
				inboxSession(a.Item), inboxOrigin(a.Origin), inboxTool(a), cut(string(a.Arguments), 60)}
		}); err != nil {
			return err
		}
	}
	if len(v.Ended) > 0 {
		if len(v.Approvals) > 0 {
			fmt.Fprintln(w)
		}
		return writeTable(w, v.Ended, "", "RUN\tENDED\tSESSION\tFROM\tSTATUS\tCOST\tREASON", func(e inbox.Ended) []any {
			return []any{e.RunID, e.EndedAt.Local().Format("15:04"), inboxSession(e.Item), inboxOrigin(e.Origin), e.Status,
				fmt.Sprintf("$%.4f", e.CostUSD), cut(e.Reason, 60)}
		})
	}
	return nil
}

func inboxSession(it inbox.Item) string {
	s := it.SessionTitle
	if it.ParentSessionID != nil {
		s += " (child)"
	}
	return cut(s, 40) + " " + it.SessionID
}

// inboxTool is the call's tool, and for a call in approval mode review that approving it here
// keeps every hunk (choosing hunk by hunk is the session's, in the window or the terminal).
func inboxTool(a inbox.Approval) string {
	if a.Review {
		return a.Tool + " (review: approving keeps every hunk)"
	}
	return a.Tool
}

func inboxOrigin(o inbox.Process) string {
	if o.Kind == "" {
		return "-" // a run recorded before its origin was kept
	}
	if o.Client != "" {
		return fmt.Sprintf("%s %s %d", o.Kind, o.Client, o.PID)
	}
	return fmt.Sprintf("%s %d", o.Kind, o.PID)
}

// cut is s on one line, shortened to n runes.
func cut(s string, n int) string { return core.Cut(strings.Join(strings.Fields(s), " "), n) }

// inboxDismiss dismisses through the window when one is open (its inbox updates at once),
// else in the database.
func inboxDismiss(ctx context.Context, path, runID string, w io.Writer) error {
	err := inbox.Dismiss(ctx, path, runID)
	if errors.Is(err, inbox.ErrNoWindow) {
		var db *store.DB
		if db, err = store.Open(ctx, path); err != nil {
			return err
		}
		defer db.Close()
		err = db.DismissRun(ctx, runID)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "dismissed run %s\n", runID)
	return err
}

// Answer runs `loopdesk approve ARGS...` (approve true) or `loopdesk deny ARGS...`: 0 the
// call was answered, 1 no process holds it (or it was answered already), 2 bad input.
func Answer(ctx context.Context, approve bool, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	name := "deny"
	if approve {
		name = "approve"
	}
	if code, asked := helpAsked(args, approveUsage, stdout, stderr); asked {
		return code
	}
	var dbFlag, session, always, reason string
	fs := flag.NewFlagSet("loopdesk "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&dbFlag, "db", "", "")
	fs.StringVar(&session, "session", "", "")
	if approve {
		fs.StringVar(&always, "always", "", "")
	} else {
		fs.StringVar(&reason, "reason", "", "")
	}
	rest, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
	case len(rest) != 1 || strings.TrimSpace(rest[0]) == "":
		err = errors.New("name one CALL_ID")
	case always != "" && always != inbox.ScopeSession && always != inbox.ScopeFolder && always != inbox.ScopeEverywhere:
		err = fmt.Errorf("--always %q: want session, folder or everywhere", always)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk %s: %v\n\n%s", name, err, approveUsage)
		return ExitUsage
	}
	callID := rest[0]
	path, err := inboxDB(dbFlag, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk %s: %v\n", name, err)
		return ExitOther
	}
	msg := "denied call " + callID
	if approve {
		msg = "approved call " + callID
	}
	if always != "" {
		var n int
		n, err = inbox.SendAlways(ctx, path, session, callID, always)
		msg = fmt.Sprintf("approved call %s and %d other waiting call(s); the rule is saved (%s)", callID, max(n-1, 0), always)
	} else {
		err = inbox.Send(ctx, path, inbox.Answer{SessionID: session, CallID: callID, Approve: approve, Reason: reason})
	}
	switch {
	case errors.Is(err, inbox.ErrNoWindow):
		fmt.Fprintf(stderr, "loopdesk %s: no process holds call %s: %v\n", name, callID, err)
		return ExitOther
	case errors.Is(err, inbox.ErrNotPending):
		fmt.Fprintf(stderr, "loopdesk %s: no process holds call %s waiting (it was answered already, or never asked): %v\n", name, callID, err)
		return ExitOther
	case errors.Is(err, inbox.ErrInvalid):
		fmt.Fprintf(stderr, "loopdesk %s: %v\n", name, err)
		return ExitUsage
	case err != nil:
		fmt.Fprintf(stderr, "loopdesk %s: %v\n", name, err)
		return ExitOther
	}
	fmt.Fprintln(stdout, msg)
	return ExitOK
}
