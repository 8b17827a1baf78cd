package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopdesk/loopdesk/backend/memory"
	"github.com/loopdesk/loopdesk/backend/store"
)

const memoryUsage = `usage: loopdesk memory list [--workspace DIR] [--json] [--db PATH]
       loopdesk memory add TEXT [--scope project|personal] [--workspace DIR] [--db PATH]
       loopdesk memory edit ID TEXT [--db PATH]
       loopdesk memory remove ID [--db PATH]
       loopdesk memory import FILE [--workspace DIR] [--db PATH]
       loopdesk memory proposals [--json] [--db PATH]
       loopdesk memory accept ID... [--db PATH]
       loopdesk memory reject ID... [--db PATH]
       loopdesk memory export [--workspace DIR] [--db PATH]

Memories are what later runs carry, as Loopdesk's note after the instruction
files: the folder's project memories and your personal ones (every folder).
Nothing becomes a memory unless you approved it: a remember call asks you, and
import only makes proposals you accept or reject. See docs/memory.md.

list shows the folder's project memories and your personal ones; --json prints
one JSON object per line: {"id","scope","text","workspace",
"source":{"session_id","seq"},"created_at","updated_at"}, source null for one
you added. import reads Claude Code's MEMORY.md
(~/.claude/projects/<project>/memory/MEMORY.md) or the "## Memory" section of
an AGENTS.md: each entry becomes a proposal for the folder. export prints the
folder's memories as Markdown.

flags:
  --scope project|personal   add: the folder's (default) or yours, everywhere
  --json                     one JSON object per line
` + folderFlagsUsage

// memoryCommands are the words of `loopdesk memory`, with how many arguments each takes
// (-1: one or more).
var memoryCommands = map[string]int{"list": 0, "add": 1, "edit": 2, "remove": 1, "import": 1, "proposals": 0,
	"accept": -1, "reject": -1, "export": 0}

// Memory runs `loopdesk memory ARGS...`: 0 success, 1 an error (an unknown id, a file that
// cannot be read), 2 a usage error.
func Memory(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if code, asked := helpAsked(args, memoryUsage, stdout, stderr); asked {
		return code
	}
	cmd := args[0]
	var f folderFlags
	fs := f.flagSet("loopdesk memory " + cmd)
	scope := fs.String("scope", string(store.MemoryProject), "")
	rest, err := parseInterspersed(fs, args[1:])
	if err == nil {
		err = memoryArgsError(cmd, rest, fs, f, store.MemoryScope(*scope))
	}
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk memory: %v\n\n%s", err, memoryUsage)
		return ExitUsage
	}
	if err := memoryRun(ctx, cmd, rest, f, store.MemoryScope(*scope), getenv, stdout); err != nil {
		fmt.Fprintf(stderr, "loopdesk memory %s: %v\n", cmd, err)
		return ExitOther
	}
	return ExitOK
}

// memoryArgsError says what is wrong with a command's arguments and flags, or nil.
func memoryArgsError(cmd string, rest []string, fs *flag.FlagSet, f folderFlags, scope store.MemoryScope) error {
	want, ok := memoryCommands[cmd]
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case !ok:
		return fmt.Errorf("unknown command %q", cmd)
	case want >= 0 && len(rest) != want, want < 0 && len(rest) == 0:
		return fmt.Errorf("%s: wrong number of arguments", cmd)
	case set["scope"] && cmd != "add", !scope.Valid():
		return fmt.Errorf("--scope is project or personal, and only for add")
	case set["json"] && cmd != "list" && cmd != "proposals":
		return fmt.Errorf("--json is only for list and proposals")
	case set["workspace"] && cmd != "list" && cmd != "add" && cmd != "import" && cmd != "export":
		return fmt.Errorf("--workspace is only for list, add, import and export")
	case cmd == "add" && scope == store.MemoryPersonal && f.workspace != "":
		return fmt.Errorf("a personal memory applies to every folder: no --workspace")
	}
	return nil
}

func memoryRun(ctx context.Context, cmd string, rest []string, f folderFlags, scope store.MemoryScope,
	getenv func(string) string, w io.Writer) error {
	db, done, err := trustDB(ctx, f.db, getenv, true)
	if err != nil {
		return err
	}
	defer done()
	folder, err := memory.Folder(f.workspace)
	if err != nil {
		return err
	}
	switch cmd {
	case "list":
		return memoryList(ctx, db, folder, f.json, w)
	case "add":
		n := store.NewMemory{Scope: scope, Text: rest[0], Workspace: folder}
		if scope == store.MemoryPersonal {
			n.Workspace = ""
		}
		m, err := db.AddMemory(ctx, n)
		if err == nil {
			_, err = fmt.Fprintf(w, "added %s memory %s\n", m.Scope, m.ID)
		}
		return err
	case "edit":
		m, err := db.EditMemory(ctx, rest[0], rest[1])
		if err == nil {
			_, err = fmt.Fprintf(w, "edited memory %s\n", m.ID)
		}
		return err
	case "remove":
		err := db.RemoveMemory(ctx, rest[0])
		if err == nil {
			_, err = fmt.Fprintf(w, "removed memory %s\n", rest[0])
		}
		return err
	case "import":
		return memoryImport(ctx, db, rest[0], folder, w)
	case "proposals":
		return memoryProposals(ctx, db, f.json, w)
	case "accept":
		ms, err := db.AcceptMemoryProposals(ctx, rest)
		if err == nil {
			_, err = fmt.Fprintf(w, "accepted %d proposals as memories\n", len(ms))
		}
		return err
	case "reject":
		err := db.RejectMemoryProposals(ctx, rest)
		if err == nil {
			_, err = fmt.Fprintf(w, "rejected %d proposals\n", len(rest))
		}
		return err
	}
	ms, err := db.MemoriesFor(ctx, folder)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, memory.Export(ms, folder))
	return err
}

func memoryList(ctx context.Context, db *store.DB, folder string, asJSON bool, w io.Writer) error {
	ms, err := db.MemoriesFor(ctx, folder)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, m := range ms {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	return writeTable(w, ms, "no memories for "+folder, "ID\tSCOPE\tFROM\tTEXT", func(m store.Memory) []any {
		return []any{m.ID, m.Scope, memoryFrom(m), strings.ReplaceAll(m.Text, "\n", " ")}
	})
}

// memoryFrom is a memory's source in a table cell.
func memoryFrom(m store.Memory) string {
	switch {
	case m.Source != nil:
		return fmt.Sprintf("session %s row %d", m.Source.SessionID, m.Source.Seq)
	case m.Origin != "":
		return "import " + filepath.Base(m.Origin)
	}
	return "you"
}

func memoryImport(ctx context.Context, db *store.DB, file, folder string, w io.Writer) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	body, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	entries := memory.Entries(abs, string(body))
	if len(entries) == 0 {
		return fmt.Errorf("%s holds no entries to propose (a list item or paragraph each; an AGENTS.md's under \"## Memory\")", file)
	}
	ps := make([]store.MemoryProposal, len(entries))
	for i, e := range entries {
		ps[i] = store.MemoryProposal{Scope: store.MemoryProject, Text: e, Workspace: folder, Origin: abs}
	}
	if ps, err = db.ProposeMemories(ctx, ps); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%d proposals from %s for %s: see them with `loopdesk memory proposals`, then accept or reject each\n",
		len(ps), file, folder)
	return err
}

func memoryProposals(ctx context.Context, db *store.DB, asJSON bool, w io.Writer) error {
	ps, err := db.MemoryProposals(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, p := range ps {
			if err := enc.Encode(p); err != nil {
				return err
			}
		}
		return nil
	}
	return writeTable(w, ps, "no proposals", "ID\tFOLDER\tFROM\tTEXT", func(p store.MemoryProposal) []any {
		return []any{p.ID, p.Workspace, filepath.Base(p.Origin), strings.ReplaceAll(p.Text, "\n", " ")}
	})
}
