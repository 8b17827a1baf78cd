package cli

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
)

// helpAsked answers a command line that names no subcommand or asks for help: the usage on
// stdout with exit 0 when help was asked for, on stderr with exit 2 when nothing was given.
// asked is false for any other command line, which the command then reads.
func helpAsked(args []string, usage string, stdout, stderr io.Writer) (code int, asked bool) {
	if len(args) > 0 && args[0] != "-h" && args[0] != "--help" && args[0] != "help" {
		return 0, false
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage, true
	}
	fmt.Fprint(stdout, usage)
	return ExitOK, true
}

// folderFlags are the flags of the commands about a folder's hooks and skills.
type folderFlags struct {
	json      bool
	workspace string // the folder; "" for the current one
	db        string
}

// folderFlagsUsage is the usage of --workspace and --db, for the end of those commands' usage.
const folderFlagsUsage = `  --workspace DIR   the folder (default: the current folder)
  --db PATH         database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
`

// flagSet is the flag set named name that reads --json, --workspace and --db into f, and
// prints nothing itself (the command words its usage errors).
func (f *folderFlags) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&f.json, "json", false, "")
	fs.StringVar(&f.workspace, "workspace", "", "")
	fs.StringVar(&f.db, "db", "", "")
	return fs
}

// writeTable writes entries as aligned columns under header (tab-separated), a line of cells
// each (printed as %v), or the line empty instead when there are none and empty is not "".
func writeTable[T any](w io.Writer, entries []T, empty, header string, cells func(e T) []any) error {
	if len(entries) == 0 && empty != "" {
		_, err := fmt.Fprintln(w, empty)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, e := range entries {
		for i, c := range cells(e) {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
