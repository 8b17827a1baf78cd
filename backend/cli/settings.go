package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

const settingsUsage = `usage: loopdesk settings [--json] [--db PATH]

Prints the configuration loopdesk run uses and where each value comes from:
default, saved (the window's Settings: the database, the key file, providers.json), env, flag.
The last row lists the providers (name, kind, base URL, models, where the key comes from).
No API key is ever printed, only whether one was found and where.
  --db PATH    database file (default $LOOPDESK_DB, else $XDG_DATA_HOME/loopdesk/loopdesk.db)
  --json       one JSON object per setting per line: {"setting","value","source","detail"}
`

// SettingsCommand is `loopdesk settings`; it returns the exit status. A
// database file that does not exist yet is not created: nothing is saved.
func SettingsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loopdesk settings", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dbPath := fs.String("db", "", "")
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, settingsUsage)
			return ExitOK
		}
		fmt.Fprintf(stderr, "loopdesk settings: %v\n\n%s", err, settingsUsage)
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loopdesk settings: unexpected argument %q\n\n%s", fs.Arg(0), settingsUsage)
		return ExitUsage
	}
	res, srcs, err := resolve(ctx, *dbPath, getenv, config.Overrides{})
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk settings: %v\n", err)
		return settingErrorCode(err)
	}
	ps, err := loadProviders(res, srcs, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "loopdesk settings: %v\n", err)
		return ExitOther
	}
	rows := config.Rows(res, srcs, ps)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				fmt.Fprintf(stderr, "loopdesk settings: %v\n", err)
				return ExitOther
			}
		}
		return ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, r := range rows {
		from := string(r.Source.Layer)
		if r.Source.Detail != "" {
			from += " " + r.Source.Detail
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Setting, humanValue(r.Value), from)
	}
	if err := tw.Flush(); err != nil {
		return ExitOther
	}
	return ExitOK
}

// resolve opens the database read path (without creating one) and the key
// file and resolves the configuration with flags on top. The command line's
// one entry to config.Effective.
func resolve(ctx context.Context, dbPath string, getenv func(string) string, flags config.Overrides) (config.Resolved, []config.Source, error) {
	if dbPath == "" {
		dbPath = getenv("LOOPDESK_DB")
	}
	if dbPath == "" {
		var err error
		if dbPath, err = store.DefaultPath(); err != nil {
			return config.Resolved{}, nil, err
		}
	}
	cfgDir, err := config.ConfigDir()
	if err != nil {
		return config.Resolved{}, nil, err
	}
	keys := config.Keys{Dir: cfgDir, Getenv: getenv}
	var reader config.SettingsReader
	if _, err := os.Stat(dbPath); err == nil {
		db, err := store.Open(ctx, dbPath)
		if err != nil {
			return config.Resolved{}, nil, err
		}
		defer db.Close()
		reader = db
	} else if !errors.Is(err, fs.ErrNotExist) {
		return config.Resolved{}, nil, fmt.Errorf("database %s: %w", dbPath, err)
	}
	return config.Effective(ctx, reader, dbPath, keys, getenv, flags)
}

// settingErrorCode is the exit status for a configuration that cannot be resolved: 2 for a
// saved setting Loopdesk cannot use (as for a bad flag: the person must change a value), 1
// for anything else (a database that cannot be read).
func settingErrorCode(err error) int {
	var bad *config.SettingError
	if errors.As(err, &bad) {
		return ExitUsage
	}
	return ExitOther
}

// humanValue is a value as the table shows it: 0 limits as "no limit", the
// key as found/not found, lists compactly.
func humanValue(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "found"
		}
		return "none"
	case int:
		if x == 0 {
			return "no limit"
		}
	case int64:
		if x == 0 {
			return "no limit"
		}
	case float64:
		if x == 0 {
			return "no limit"
		}
		return fmt.Sprintf("$%g", x)
	case string:
		if x == "" {
			return "(none)"
		}
		if d, err := time.ParseDuration(x); err == nil && d == 0 {
			return "no limit"
		}
		return x
	case core.Price:
		s := fmt.Sprintf("$%g in / $%g out", x.InputPerMTok, x.OutputPerMTok)
		if x.CacheReadPerMTok != 0 || x.CacheWritePerMTok != 0 {
			s += fmt.Sprintf(" / $%g cache read / $%g cache write", x.CacheReadPerMTok, x.CacheWritePerMTok)
		}
		return s + " per million tokens"
	case []config.ProviderInfo:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = fmt.Sprintf("%s (%s %s, models %s, key %s)", p.Name, p.Kind, p.BaseURL, orNone(p.Models), p.Key)
			if p.Error != "" {
				parts[i] += ": " + p.Error
			}
		}
		return strings.Join(parts, "; ")
	case []config.Price:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = fmt.Sprintf("%s $%g/$%g", p.Model, p.InputPerMTok, p.OutputPerMTok)
			if p.CacheReadPerMTok != 0 || p.CacheWritePerMTok != 0 {
				parts[i] += fmt.Sprintf(" (cache $%g/$%g)", p.CacheReadPerMTok, p.CacheWritePerMTok)
			}
		}
		return orNone(parts)
	case []config.ContextWindow:
		parts := make([]string, len(x))
		for i, w := range x {
			parts[i] = fmt.Sprintf("%s %d", w.Model, w.Tokens)
		}
		return orNone(parts)
	case []config.ModelVision:
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = fmt.Sprintf("%s/%s %s", v.Provider, v.Model, v.Vision)
		}
		if len(parts) == 0 {
			return "auto (from each model's name)"
		}
		return strings.Join(parts, ", ") + "; others auto"
	}
	return fmt.Sprint(v)
}

func orNone(parts []string) string {
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

// loadProviders is every provider a run can use: "default" as cfg resolved it (the key and
// where it came from) and the entries of providers.json. A bad file is an error naming it
// and the entry.
func loadProviders(cfg config.Resolved, srcs []config.Source, getenv func(string) string) (config.Providers, error) {
	return config.LoadAll(config.DefaultOf(cfg, srcs), getenv)
}
