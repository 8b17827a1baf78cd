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
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/transcript"
)

// Exit statuses of `loopdesk sessions` (docs/cli.md).
const (
	sessExitOK    = 0
	sessExitError = 1
	sessExitUsage = 2
)

const sessUsage = `usage: loopdesk sessions COMMAND [flags]

commands:
  list                 list sessions, most recently updated first (archived ones aside);
                       --project NAME: that project's only; --archived: the archived
                       ones only; --all: archived or not
  show ID              print a session's rows
  fork ID --at SEQ     copy rows 1..SEQ into a new session; --with-files: and give it
                       its own checkout (a git worktree on branch loopdesk/<fork id>
                       with the session's changes up to SEQ, or a copy of the folder)
  search QUERY...      full-text search over every session (FTS5 syntax;
                       --literal for plain words, --limit N, default 50)
  export ID [-o FILE]  write a session as JSON Lines (stdout by default), with its
                       change records (--contents: and the file contents);
                       --format markdown: a readable transcript instead
  import FILE          read an export (- for stdin) into a new session
  delete ID...         delete sessions (their forks are kept) with their rows, images and
                       checkpoints, and the fork folder Loopdesk made for one (worktree
                       and branch too) unless it holds work neither committed nor brought
                       back (kept, and said why); --remove-folder: remove it anyway
  archive ID...        hide sessions from the list (search and show still find them)
  unarchive ID...      bring archived sessions back to the list
  project set ID... --project NAME
                       put sessions in project NAME ("" takes them out of theirs)
  compact-db           rewrite the database without its free space (refused while a
                       run goes)
  changes ID           the files each row changed (created/modified/deleted/mode) and
                       by whom (agent, outside, person); --hunks: one line per hunk
  revert ID --seq SEQ --path PATH --hunk N
                       revert one hunk of the change row SEQ made to PATH; the
                       model is told which lines; refused if they changed since
  restore ID --to SEQ  restore the files changed at or after row SEQ to their state
                       before it (--path P for one file, --dry-run to preview,
                       --force PATH (repeatable) / --force-all to overwrite files
                       changed outside the session since)
  totals ID            tokens, cost, turns and tool calls over all of a session's runs
  plan ID              the session's pinned plan (the latest update_plan that succeeded,
                       or your edit of it); --json: null when there is none
  regenerate ID [--row N]
                       run again from before the reply at row N (default: the last) in
                       a fork; run's flags, events and exit statuses (--help for more)
  edit ID --row N --text TEXT
                       send TEXT instead of your message at row N, in a fork; as regenerate
  retry ID             run the session again after a failed or stopped run; as regenerate

flags for every command:
  --db PATH            database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --json               machine-readable output, one JSON object per line
`

// sessUsageError is a mistake in the command line: exit status 2.
type sessUsageError struct{ msg string }

func (e sessUsageError) Error() string { return e.msg }

func sessUsagef(format string, args ...any) error {
	return sessUsageError{fmt.Sprintf(format, args...)}
}

// sessCmd is one parsed `loopdesk sessions` command line.
type sessCmd struct {
	name   string
	args   []string // positional arguments after the command
	dbPath string
	json   bool
	at     int64
	atSet  bool
	limit  int
	lit    bool
	out    string
	format string  // export: jsonl or markdown
	cp     cpFlags // changes, restore, export --contents
	hk     hunkFlags
	fk     forkFlags
	org    orgFlags
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer // notes besides the result (restore)
}

// Sessions runs `loopdesk sessions ARGS...` and returns the exit status:
// 0 success, 2 usage error, 1 any other error (message on stderr).
func Sessions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return sessionsWithStdin(ctx, args, os.Stdin, stdout, stderr)
}

func sessionsWithStdin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, sessUsage)
		return sessExitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, sessUsage)
		return sessExitOK
	}
	switch args[0] {
	case "regenerate", "edit", "retry": // runs: run's flags, output and exit statuses
		return sessionsVersion(ctx, args[0], args[1:], stdin, stdout, stderr)
	}
	cmd, err := sessParse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, sessUsage)
		return sessExitOK
	}
	if err == nil {
		cmd.stdin, cmd.stdout, cmd.stderr = stdin, stdout, stderr
		err = cmd.run(ctx)
	}
	var ue sessUsageError
	switch {
	case err == nil:
		return sessExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "loopdesk sessions: %v\n\n%s", err, sessUsage)
		return sessExitUsage
	default:
		fmt.Fprintf(stderr, "loopdesk sessions %s: %v\n", args[0], err)
		return sessExitError
	}
}

// sessParse reads the command and its flags; flags may come before or
// after the positional arguments ("show ID --json" and "show --json ID").
func sessParse(args []string, stderr io.Writer) (*sessCmd, error) {
	c := &sessCmd{name: args[0]}
	fs := flag.NewFlagSet("loopdesk sessions "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.dbPath, "db", "", "database file")
	fs.BoolVar(&c.json, "json", false, "JSON output")
	var at string
	switch c.name {
	case "fork":
		fs.StringVar(&at, "at", "", "fork after this seq")
		fs.BoolVar(&c.fk.withFiles, "with-files", false, "give the fork its own checkout")
	case "delete":
		fs.BoolVar(&c.fk.removeFolder, "remove-folder", false, "remove the fork folder too")
	case "list", "project":
		c.org.flags(fs, c.name)
	case "search":
		fs.IntVar(&c.limit, "limit", store.DefaultSearchLimit, "maximum hits")
		fs.BoolVar(&c.lit, "literal", false, "match the words as typed, no FTS5 syntax")
	case "export":
		fs.StringVar(&c.out, "o", "", "output file")
		fs.StringVar(&c.format, "format", "jsonl", "jsonl or markdown")
		c.cp.exportFlags(fs)
	case "restore":
		c.cp.restoreFlags(fs)
	case "changes":
		c.hk.changesFlags(fs)
	case "revert":
		c.hk.revertFlags(fs)
	case "show", "import", "totals", "plan", "archive", "unarchive", "compact-db":
	default:
		return nil, sessUsagef("unknown command %q", c.name)
	}
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, sessUsagef("%v", err)
		}
		consumed := len(rest) - len(fs.Args())
		rest = fs.Args()
		if consumed > 0 && args[len(args)-len(rest)-1] == "--" {
			c.args = append(c.args, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		c.args = append(c.args, rest[0])
		rest = rest[1:]
	}
	if at != "" {
		n, err := strconv.ParseInt(at, 10, 64)
		if err != nil {
			return nil, sessUsagef("--at %q: want a row number", at)
		}
		c.at, c.atSet = n, true
	}
	if err := c.org.check(c.name, c.args); err != nil {
		return nil, err
	}
	want := map[string]int{"list": 0, "compact-db": 0, "show": 1, "fork": 1, "export": 1, "import": 1, "changes": 1, "restore": 1, "totals": 1, "revert": 1, "plan": 1}
	if n, ok := want[c.name]; ok && len(c.args) != n {
		if n == 0 {
			return nil, sessUsagef("%s takes no arguments, got %q", c.name, c.args)
		}
		return nil, sessUsagef("%s needs exactly one %s, got %d arguments", c.name, map[bool]string{true: "FILE", false: "session ID"}[c.name == "import"], len(c.args))
	}
	if c.name == "search" && strings.TrimSpace(strings.Join(c.args, " ")) == "" {
		return nil, sessUsagef("search needs a QUERY")
	}
	if c.name == "export" && c.format != "jsonl" && c.format != "markdown" {
		return nil, sessUsagef("--format %q: want jsonl or markdown", c.format)
	}
	if c.name == "fork" && !c.atSet {
		return nil, sessUsagef("fork needs --at SEQ")
	}
	if c.name == "restore" {
		if err := c.cp.check(); err != nil {
			return nil, err
		}
	}
	if c.name == "revert" {
		if err := c.hk.checkRevert(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *sessCmd) run(ctx context.Context) error {
	path := c.dbPath
	if path == "" {
		var err error
		if path, err = store.DefaultPath(); err != nil {
			return err
		}
	}
	// An import file that cannot be read fails before the database is
	// created or touched.
	var in io.Reader
	if c.name == "import" {
		if c.args[0] == "-" {
			in = c.stdin
		} else {
			f, err := os.Open(c.args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetRunOrigin(store.RunOrigin{Kind: inbox.OriginRun}) // regenerate, edit and retry run here
	switch c.name {
	case "list":
		return c.list(ctx, db)
	case "totals":
		return c.totals(ctx, db, c.args[0])
	case "plan":
		return c.plan(ctx, db, c.args[0])
	case "show":
		return c.show(ctx, db, c.args[0])
	case "fork":
		if c.fk.withFiles {
			return c.forkWithFiles(ctx, db, path, c.args[0])
		}
		s, err := db.Fork(ctx, c.args[0], c.at)
		if err != nil {
			return err
		}
		return c.emit(map[string]string{"session_id": s.ID}, fmt.Sprintf("forked %s at %d: %s\n", c.args[0], c.at, s.ID))
	case "search":
		return c.search(ctx, db, strings.Join(c.args, " "))
	case "export":
		return c.export(ctx, db, c.args[0])
	case "changes":
		if c.hk.hunks {
			return c.hunks(ctx, db, c.args[0])
		}
		return c.changes(ctx, db, c.args[0])
	case "revert":
		return c.revert(ctx, db, c.args[0])
	case "restore":
		return c.restore(ctx, db, c.args[0])
	case "import":
		s, err := stack.ImportSession(ctx, db, in)
		if err != nil {
			return fmt.Errorf("%s: %w", c.args[0], err)
		}
		return c.emit(map[string]string{"session_id": s.ID}, fmt.Sprintf("imported %s as %s (%q)\n", c.args[0], s.ID, s.Title))
	case "delete":
		return c.delete(ctx, db, c.args)
	case "archive", "unarchive", "project", "compact-db":
		return c.organise(ctx, db)
	}
	return sessUsagef("unknown command %q", c.name)
}

// emit prints v as one JSON line with --json, else the human text.
func (c *sessCmd) emit(v any, human string) error {
	if c.json {
		return sessJSONLine(c.stdout, v)
	}
	_, err := io.WriteString(c.stdout, human)
	return err
}

func sessJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonLines writes one JSON object per entry and line, HTML characters as they are: the
// --json form of every list command.
func jsonLines[T any](w io.Writer, entries []T) error {
	for _, e := range entries {
		if err := sessJSONLine(w, e); err != nil {
			return err
		}
	}
	return nil
}

func (c *sessCmd) list(ctx context.Context, db *store.DB) error {
	list, err := db.ListSessionsBy(ctx, c.org.filter)
	if err != nil {
		return err
	}
	if c.json {
		all, err := db.AllTotals(ctx)
		if err != nil {
			return err
		}
		sizes, err := db.SessionSizes(ctx)
		if err != nil {
			return err
		}
		for _, s := range list {
			t := all[s.ID]
			t.SessionID = s.ID
			// The session's own fields, then the same totals `sessions totals` prints.
			line := struct {
				store.Session
				Runs         int     `json:"runs"`
				Turns        int     `json:"turns"`
				ToolCalls    int     `json:"tool_calls"`
				InputTokens  int64   `json:"input_tokens"`
				OutputTokens int64   `json:"output_tokens"`
				Cost         float64 `json:"cost"`
				CacheRead    int64   `json:"cache_read_tokens"`
				CacheWrite   int64   `json:"cache_write_tokens"`
				Bytes        int64   `json:"bytes"`
			}{s, t.Runs, t.Turns, t.ToolCalls, t.InputTokens, t.OutputTokens, t.Cost, t.CacheReadTokens, t.CacheWriteTokens, sizes[s.ID].Total}
			if err := sessJSONLine(c.stdout, line); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tTITLE\tLINEAGE\tPROJECT")
	for _, s := range list {
		lineage := ""
		switch {
		case s.ParentCallID != "":
			lineage = fmt.Sprintf("child of %s (call %s at row %d)", s.ParentID, s.ParentCallID, s.ForkSeq)
		case s.ParentID != "":
			lineage = fmt.Sprintf("fork of %s at %d", s.ParentID, s.ForkSeq)
		}
		title := sessClean(s.Title)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), title, lineage, sessClean(s.Project))
	}
	return tw.Flush()
}

func (c *sessCmd) show(ctx context.Context, db *store.DB, id string) error {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return err
	}
	rows, err := db.Chunks(ctx, id)
	if err != nil {
		return err
	}
	if c.json {
		for _, r := range rows {
			line := struct {
				Seq       int64           `json:"seq"`
				Kind      store.Kind      `json:"kind"`
				Payload   json.RawMessage `json:"payload"`
				RunID     string          `json:"run_id"`
				CreatedAt time.Time       `json:"created_at"`
			}{r.Seq, r.Kind, r.Payload, r.RunID, r.CreatedAt}
			if err := sessJSONLine(c.stdout, line); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(c.stdout, "%s  %s\n", s.ID, sessClean(s.Title))
	prov := s.Provider
	if prov == "" {
		prov = config.DefaultProvider // sessions made before providers existed
	}
	fmt.Fprintf(c.stdout, "workspace %s  provider %s  model %s  updated %s\n", sessClean(s.Workspace), sessClean(prov),
		sessClean(s.Model), s.UpdatedAt.Local().Format(time.DateTime))
	switch {
	case s.ParentCallID != "":
		fmt.Fprintf(c.stdout, "child of %s (task call %s at row %d)\n", s.ParentID, s.ParentCallID, s.ForkSeq)
	case s.ParentID != "":
		fmt.Fprintf(c.stdout, "fork of %s at row %d\n", s.ParentID, s.ForkSeq)
	}
	fmt.Fprintln(c.stdout)
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", r.Seq, r.Kind, sessSummary(r))
	}
	return tw.Flush()
}

// sessSummary is a one-line human view of a row.
func sessSummary(r store.Chunk) string {
	var line string
	switch r.Kind {
	case store.KindUser, store.KindSystem:
		var p store.UserPayload
		json.Unmarshal(r.Payload, &p)
		line = p.Text
	case store.KindAssistant:
		var p store.AssistantPayload
		json.Unmarshal(r.Payload, &p)
		parts := []string{}
		if p.Text != "" {
			parts = append(parts, p.Text)
		}
		for _, tc := range p.ToolCalls {
			parts = append(parts, fmt.Sprintf("-> %s %s [%s]", tc.Name, tc.Arguments, tc.ID))
		}
		line = strings.Join(parts, "  ")
	case store.KindToolResult:
		var p store.ToolResultPayload
		json.Unmarshal(r.Payload, &p)
		mark := ""
		if p.IsError {
			mark = " (error)"
		}
		line = fmt.Sprintf("[%s] %s%s: %s", p.CallID, p.Name, mark, p.Content)
	case store.KindApproval:
		var p store.ApprovalPayload
		json.Unmarshal(r.Payload, &p)
		line = fmt.Sprintf("[%s] %s %s by %s", p.CallID, p.Tool, p.Decision, p.By)
		if p.Reason != "" {
			line += ": " + p.Reason
		}
	case store.KindSummary:
		var p store.SummaryPayload
		json.Unmarshal(r.Payload, &p)
		line = fmt.Sprintf("(rows 1..%d) %s", p.ThroughSeq, p.Text)
	case store.KindRestore:
		line = restoreSummary(r.Payload)
	case store.KindNote:
		var p store.NotePayload
		json.Unmarshal(r.Payload, &p)
		line = fmt.Sprintf("[%s] %s", p.Source, p.Text)
	case store.KindImageExcluded:
		var p store.ImageExcludedPayload
		json.Unmarshal(r.Payload, &p)
		rows := make([]string, len(p.Images))
		for i, im := range p.Images {
			rows[i] = fmt.Sprintf("#%d", im.Seq)
		}
		line = fmt.Sprintf("%d image(s) of %s left out of the context: %s", len(p.Images), strings.Join(rows, ", "), p.Reason)
	case store.KindHook:
		var p store.HookPayload
		json.Unmarshal(r.Payload, &p)
		line = fmt.Sprintf("%s hook %s exit %d", p.Event, p.Command, p.ExitCode)
		if p.CallID != "" {
			line = "[" + p.CallID + "] " + line
		}
		if p.Decision != "" {
			line += " -> " + p.Decision
		}
		if p.Reason != "" {
			line += ": " + p.Reason
		}
	}
	return core.Cut(sessClean(line), 160)
}

// sessClean makes stored text safe for a terminal: newlines and tabs become
// spaces, other control characters (escape sequences from tool output)
// are dropped.
func sessClean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}

func (c *sessCmd) search(ctx context.Context, db *store.DB, q string) error {
	if c.lit {
		q = store.Literal(q)
	}
	hits, err := db.Search(ctx, q, c.limit)
	if err != nil {
		return err
	}
	if c.json {
		for _, h := range hits {
			if err := sessJSONLine(c.stdout, h); err != nil {
				return err
			}
		}
		return nil
	}
	if len(hits) == 0 {
		_, err := fmt.Fprintf(c.stdout, "no rows match %q\n", q)
		return err
	}
	for _, h := range hits {
		snippet := strings.NewReplacer(store.MarkStart, "«", store.MarkEnd, "»").Replace(h.Snippet)
		fmt.Fprintf(c.stdout, "%s #%d %s  %s\n    %s\n", h.SessionID, h.Seq, h.Kind, sessClean(h.SessionTitle), sessClean(snippet))
	}
	return nil
}

// export writes to stdout, or to -o FILE through a temporary file renamed
// into place, so a failed export never leaves a half-written file.
func (c *sessCmd) export(ctx context.Context, db *store.DB, id string) error {
	write := func(w io.Writer) error { return stack.ExportSession(ctx, db, id, w, c.cp.contents) }
	if c.format == "markdown" {
		// Written to a file, the images go next to it; on stdout they are named only.
		opt := transcript.Options{}
		if c.out != "" && c.out != "-" {
			opt = transcript.ImagesNextTo(ctx, db, c.out)
		}
		write = func(w io.Writer) error { return transcript.Export(ctx, db, id, w, opt) }
	}
	if c.out == "" || c.out == "-" {
		return write(c.stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.out), ".loopdesk-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.out); err != nil {
		return err
	}
	if c.json {
		return sessJSONLine(c.stdout, map[string]string{"session_id": id, "file": c.out})
	}
	return nil
}

// totals prints what the session used over all its runs: one JSON object with --json.
// Child sessions' spend is counted in, with one line per child.
func (c *sessCmd) totals(ctx context.Context, db *store.DB, id string) error {
	t, kids, err := db.FamilyTotals(ctx, id)
	if err != nil {
		return err
	}
	var human strings.Builder
	for _, k := range kids {
		fmt.Fprintf(&human, "child        %s: %d in, %d out, $%.4f\n", k.SessionID, k.InputTokens, k.OutputTokens, k.Cost)
	}
	return c.emit(struct {
		store.Totals
		Children []store.ChildTotals `json:"children"`
	}{t, kids}, fmt.Sprintf("session      %s\nruns         %d\nturns        %d\ntool calls   %d\n"+
		"input tokens %d (cache read %d, cache write %d)\noutput tokens %d\ncost         $%.4f\n",
		t.SessionID, t.Runs, t.Turns, t.ToolCalls, t.InputTokens, t.CacheReadTokens, t.CacheWriteTokens, t.OutputTokens, t.Cost)+human.String())
}
