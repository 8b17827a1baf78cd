package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals"
	"github.com/loopdesk/loopdesk/backend/store"
)

const approvalsUsage = `usage: loopdesk approvals report [--db PATH] [--session ID] [--since 7d] [--json]

How many calls you answered, what rules, the mode, hooks and skills decided instead, how
long you took to answer, and the allow rules that would have spared you the most prompts
(never one that would have allowed a call you denied, a network command, or a write
outside the folder). See docs/approvals.md.

  --db PATH       database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --session ID    only this session (default: every session)
  --since AGE     only answers of the last AGE: 7d, 36h, 90m (default: all)
  --json          one JSON object
`

// ApprovalsCommand runs `loopdesk approvals report`.
func ApprovalsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if code, asked := helpAsked(args, approvalsUsage, stdout, stderr); asked {
		return code
	}
	var dbFlag, session, since string
	var asJSON bool
	fs := flag.NewFlagSet("loopdesk approvals", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&dbFlag, "db", "", "")
	fs.StringVar(&session, "session", "", "")
	fs.StringVar(&since, "since", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	rest, err := parseInterspersed(fs, args)
	f := approvals.Filter{SessionID: strings.TrimSpace(session)}
	switch {
	case err != nil:
	case len(rest) != 1 || rest[0] != "report":
		err = errors.New("the one subcommand is report")
	case since != "":
		var age time.Duration
		if age, err = approvals.ParseAge(since); err == nil {
			f.Since = time.Now().Add(-age)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk approvals: %v\n\n%s", err, approvalsUsage)
		return ExitUsage
	}
	if err := approvalsReport(ctx, dbFlag, getenv, f, asJSON, stdout); err != nil {
		fmt.Fprintf(stderr, "loopdesk approvals: %v\n", err)
		return ExitOther
	}
	return ExitOK
}

func approvalsReport(ctx context.Context, dbFlag string, getenv func(string) string, f approvals.Filter, asJSON bool, w io.Writer) error {
	path, err := inboxDB(dbFlag, getenv)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := approvals.Build(ctx, db, f)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeApprovals(w, r)
}

// writeApprovals is the report for a person at a terminal.
func writeApprovals(w io.Writer, r approvals.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "You answered %d calls (median %s, p90 %s to answer).\n", r.Asked, msText(r.AnswerMS.P50), msText(r.AnswerMS.P90))
	ruled := 0
	ids := make([]string, 0, len(r.AllowedByRule))
	for id, n := range r.AllowedByRule {
		ruled += n
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Fprintf(&b, "Allowed without asking: %d by rules", ruled)
	for _, id := range ids {
		fmt.Fprintf(&b, " (%s: %d)", id, r.AllowedByRule[id])
	}
	fmt.Fprintf(&b, ", %d by the mode, %d by hooks, %d by skills; %d ran in the sandbox.\n",
		r.AllowedByMode, r.AllowedByHook, r.AllowedBySkill, r.Sandboxed)
	fmt.Fprintf(&b, "Denied: %d by you, %d by rules, %d by the mode, %d by hooks.\n", r.Denied.Person, r.Denied.Rule, r.Denied.Mode, r.Denied.Hook)
	if len(r.Suggestions) == 0 {
		b.WriteString("No rule would have spared you two prompts or more without allowing something you refused.\n")
	}
	for _, s := range r.Suggestions {
		fmt.Fprintf(&b, "Suggested: %s — %d prompts fewer; it would have allowed:", store.RuleText(store.EffectAllow, s.Rule.Tool, s.Rule.Pattern, s.Rule.Scope), s.PromptsRemoved)
		for _, c := range s.WouldAllow {
			fmt.Fprintf(&b, " %s#%d", c.SessionID, c.Seq)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// msText is a time to answer in seconds, "-" for none.
func msText(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}
