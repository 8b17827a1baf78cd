package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/loopdesk/loopdesk/backend/provider"
)

// Version and Commit identify the build. The Makefile sets them at link time
// (-ldflags "-X github.com/loopdesk/loopdesk/backend/cli.Version=... -X ...Commit=...")
// because CI builds with -buildvcs=false, so Go's own VCS stamp is absent.
var (
	Version = "0.0.0+dev"
	Commit  = "unknown"
)

// The model servers see which Loopdesk calls them.
func init() { provider.UserAgent = "Loopdesk/" + Version }

// Exit statuses shared by every subcommand (docs/cli.md).
const (
	ExitOK    = 0
	ExitOther = 1
	ExitUsage = 2
)

// Commands are the subcommands Main dispatches, as the error for an unknown word and the
// no-display message name them.
var Commands = []string{"run", "sessions", "inbox", "approve", "deny", "approvals", "settings", "mcp", "acp", "agents", "hooks", "skills", "otel", "memory", "db", "help",
	"version"}

// commandList is Commands for a message: "run, sessions, ..., version".
func commandList() string { return strings.Join(Commands, ", ") }

// Usage is what `loopdesk --help` prints.
const Usage = `usage: loopdesk [FOLDER]                open the window (a new session in FOLDER)
       loopdesk run [flags] PROMPT       run the agent headless in a workspace
       loopdesk sessions list|show|fork|search|export|import|delete|changes|restore|totals ...
       loopdesk inbox [--json] [--db PATH]
       loopdesk inbox dismiss RUN_ID [--db PATH]
                                         what waits for you: calls to approve, runs that ended
       loopdesk approve CALL_ID [--session ID] [--always session|folder|everywhere] [--db PATH]
       loopdesk deny CALL_ID [--session ID] [--reason TEXT] [--db PATH]
                                         answer a waiting call in whichever process holds it
       loopdesk approvals report [--session ID] [--since 7d] [--json] [--db PATH]
                                         the prompts you answered and rules that would spare them
       loopdesk mcp list [--json] [--mcp-config FILE]...
                                         the MCP servers and their health
       loopdesk acp [flags]              the agent for editors over ACP on stdin/stdout (docs/acp.md)
       loopdesk agents list [--json] [--workspace DIR]
                                         the agent definitions a task call can name
       loopdesk settings [--json] [--db PATH]
                                         the effective settings and where each comes from
       loopdesk hooks list|trust [--json] [--workspace DIR] [--db PATH]
                                         the hooks of a folder; trust its project hooks
       loopdesk skills list|trust|untrust [--json] [--workspace DIR] [--db PATH]
                                         the skills of a folder; trust a project skill
       loopdesk memory list|add|edit|remove|import|proposals|accept|reject|export ... [--db PATH]
                                         what later runs carry, each with where it came from
       loopdesk otel export [--db PATH] [--since 7d] [--session ID]... [--endpoint URL] [--protocol grpc|http/protobuf]
                                         send past runs to an OpenTelemetry collector
       loopdesk db check|recover|backup|restore [--db PATH] ...
                                         check, recover, back up or restore the database file
       loopdesk --version                the version and commit
       loopdesk --help                   this text

The database is $LOOPDESK_DB, or $XDG_DATA_HOME/loopdesk/loopdesk.db.
A second launch hands FOLDER to the running window instead of opening another.
See docs/cli.md (or man loopdesk) for every flag, the JSON output and the exit codes.
`

// Launch is what Main decided: either the process is done with Code, or the
// window should open (Window), on Folder when one was given.
type Launch struct {
	Window bool
	// Folder is the absolute path of the folder argument, or "".
	Folder string
	Code   int
}

// Main dispatches the command line (args without the program name). It never
// opens the window itself and never panics on any input: subcommands run and
// return their status; anything it does not recognise is a usage error (exit
// 2, usage on stderr); a window request without a display fails in one line
// (exit 1). getenv reads the environment (nil: os.Getenv).
func Main(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) Launch {
	if getenv == nil {
		getenv = os.Getenv
	}
	if len(args) > 0 && !slices.Contains([]string{"db", "help", "-h", "-help", "--help", "version", "-version", "--version", "-v"}, args[0]) &&
		slices.Contains(Commands, args[0]) && refuseDamaged(context.Background(), args[1:], getenv, stderr) { // db.go
		return Launch{Code: ExitOther}
	}
	if len(args) > 0 {
		switch args[0] {
		case "db":
			return Launch{Code: DB(context.Background(), args[1:], getenv, stdout, stderr)} // db.go
		case "run":
			// Run owns Ctrl-C: the first cancels the run cleanly, the second exits.
			return Launch{Code: Run(context.Background(), args[1:], stdin, stdout, stderr)}
		case "sessions":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Launch{Code: Sessions(ctx, args[1:], stdout, stderr)}
		case "inbox":
			return Launch{Code: InboxCommand(context.Background(), args[1:], getenv, stdout, stderr)}
		case "approve", "deny":
			return Launch{Code: Answer(context.Background(), args[0] == "approve", args[1:], getenv, stdout, stderr)}
		case "approvals":
			return Launch{Code: ApprovalsCommand(context.Background(), args[1:], getenv, stdout, stderr)} // approvals.go
		case "acp":
			// The editor ends the agent by closing stdin; a signal stops it the same way.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Launch{Code: ACP(ctx, args[1:], stdin, stdout, stderr)}
		case "settings":
			return Launch{Code: SettingsCommand(context.Background(), args[1:], getenv, stdout, stderr)}
		case "mcp":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Launch{Code: MCP(ctx, args[1:], stdout, stderr)}
		case "memory":
			return Launch{Code: Memory(context.Background(), args[1:], getenv, stdout, stderr)} // memory.go
		case "hooks":
			return Launch{Code: Hooks(context.Background(), args[1:], getenv, stdout, stderr)}
		case "skills":
			return Launch{Code: Skills(context.Background(), args[1:], getenv, stdout, stderr)}
		case "otel":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Launch{Code: Otel(ctx, args[1:], getenv, stdout, stderr)} // otel.go
		case "agents":
			return Launch{Code: Agents(args[1:], stdout, stderr)} // agents.go
		case "help", "-h", "-help", "--help":
			fmt.Fprint(stdout, Usage)
			return Launch{Code: ExitOK}
		case "version", "-version", "--version", "-v":
			fmt.Fprintf(stdout, "loopdesk %s (commit %s)\n", Version, Commit)
			return Launch{Code: ExitOK}
		}
	}
	folder, err := ParseWindowArgs(args, "")
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk: %v\n\n%s", err, Usage)
		return Launch{Code: ExitUsage}
	}
	if err := CheckDisplay(getenv); err != nil && needsDisplay {
		fmt.Fprintf(stderr, "loopdesk: %v\n", err)
		return Launch{Code: ExitOther}
	}
	return Launch{Window: true, Folder: folder}
}

// ParseWindowArgs reads the arguments of a window launch: nothing, or one
// folder (relative paths resolve against wd, "" meaning the current
// directory). It is also what a second launch's arguments go through
// (options.SecondInstanceData). Flags other than the dev build's own are
// refused, and so is anything that is not an existing folder.
func ParseWindowArgs(args []string, wd string) (string, error) {
	var folder string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if rest := args[i+1:]; len(rest) > 0 {
				if folder != "" || len(rest) > 1 {
					return "", fmt.Errorf("one folder at most, got %q", append([]string{folder}, rest...))
				}
				folder = rest[0]
			}
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			name, hasValue := windowFlag(a)
			if name == "" {
				return "", fmt.Errorf("unknown flag %s", a)
			}
			if !hasValue {
				i++ // the value is the next argument
			}
			continue
		}
		if folder != "" {
			return "", fmt.Errorf("one folder at most, got %q and %q", folder, a)
		}
		folder = a
	}
	if folder == "" {
		return "", nil
	}
	return resolveFolder(folder, wd)
}

// windowFlag recognises the flags a window launch accepts (windowFlags, set
// per build: the dev build's -assetdir, -devserver, ...). It returns the
// flag's name and whether its value is attached (-name=value).
func windowFlag(arg string) (name string, hasValue bool) {
	n := strings.TrimLeft(arg, "-")
	if k, _, ok := strings.Cut(n, "="); ok {
		n, hasValue = k, true
	}
	for _, f := range windowFlags {
		if f == n {
			return n, hasValue
		}
	}
	return "", false
}

func resolveFolder(folder, wd string) (string, error) {
	typed := folder
	if folder == "~" || strings.HasPrefix(folder, "~/") {
		// A launcher or a second instance may pass the tilde unexpanded.
		if home, err := os.UserHomeDir(); err == nil {
			folder = filepath.Join(home, strings.TrimPrefix(folder, "~"))
		}
	}
	if !filepath.IsAbs(folder) {
		if wd == "" {
			var err error
			if wd, err = os.Getwd(); err != nil {
				return "", fmt.Errorf("resolve %s: %w", folder, err)
			}
		}
		folder = filepath.Join(wd, folder)
	}
	folder = filepath.Clean(folder)
	fi, err := os.Stat(folder)
	switch {
	case err != nil && os.IsNotExist(err):
		return "", fmt.Errorf("unknown command or folder %q (commands: %s)", typed, commandList())
	case err != nil:
		return "", fmt.Errorf("folder %s: %w", folder, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a folder", folder)
	}
	return folder, nil
}

// CheckDisplay fails when no display server is reachable by name: GTK would
// otherwise panic with "failed to init GTK" and a goroutine dump.
func CheckDisplay(getenv func(string) string) error {
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return fmt.Errorf("cannot open the window: no display (DISPLAY and WAYLAND_DISPLAY are unset); "+
			"the headless commands are loopdesk %s", strings.Join(Commands[:len(Commands)-2], ", "))
	}
	return nil
}
