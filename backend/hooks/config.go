package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Event is a hook event, named as in Claude Code.
type Event string

// The events. SubagentStop fires where Stop would when the run that completed is a child
// session's (a task call's).
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	Stop             Event = "Stop"
	SubagentStop     Event = "SubagentStop"
	PreCompact       Event = "PreCompact"
	Notification     Event = "Notification"
)

// Events lists every event in the order hooks are listed.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStop, PreCompact, Notification}

// Source says where a hook was configured.
type Source string

const (
	// Personal hooks come from $XDG_CONFIG_HOME/loopdesk/hooks.json and always run.
	Personal Source = "personal"
	// Project hooks come from the folder and run only while trusted (see Config.SHA256).
	Project Source = "project"
)

// DefaultTimeout bounds a hook that declares none, as in Claude Code.
const DefaultTimeout = 60 * time.Second

// OnFailureIgnore is the "onFailure" value by which a PreToolUse hook lets a call through
// when the hook itself fails (the default denies it).
const OnFailureIgnore = "ignore"

// The project files, relative to the folder, in the order they are read and hashed.
const (
	ProjectFile       = ".loopdesk/hooks.json"
	ClaudeSettingFile = ".claude/settings.json"
	PersonalFile      = "hooks.json" // inside the personal config folder
)

// file is the configuration format, Claude Code's verbatim.
type file struct {
	Hooks map[Event][]group `json:"hooks"`
}

type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []command `json:"hooks"`
}

type command struct {
	Type      string   `json:"type"`
	Command   string   `json:"command"`
	Timeout   *float64 `json:"timeout,omitempty"`
	OnFailure string   `json:"onFailure,omitempty"`
}

// Hook is one configured command for one event.
type Hook struct {
	Event   Event
	Matcher string
	Command string
	Timeout time.Duration
	// IgnoreFailure: "onFailure": "ignore" (PreToolUse lets the call through when the hook fails).
	IgnoreFailure bool
	Source        Source
	File          string // the file it came from
}

// Config is every hook that applies in one folder.
type Config struct {
	Hooks []Hook
	// SHA256 is the hash of the project hook configuration (Text); "" when the folder has no
	// project hooks. Trust is recorded against it, so any change untrusts them.
	SHA256 string
	// Text is the project hook configuration as hashed: for each project file that configures
	// hooks, a "// <file>" line and its "hooks" value, indented.
	Text string
}

// ProjectHooks lists the project hooks of c.
func (c Config) ProjectHooks() []Hook {
	var out []Hook
	for _, h := range c.Hooks {
		if h.Source == Project {
			out = append(out, h)
		}
	}
	return out
}

// Load reads the personal hooks from personalDir (the loopdesk config folder; "" for none)
// and the project hooks of folder ("" for none). A missing file configures nothing; a file
// that cannot be read or parsed is an error naming it, and nothing is loaded from it.
func Load(personalDir, folder string) (Config, []error) {
	var c Config
	var errs []error
	if personalDir != "" {
		p := filepath.Join(personalDir, PersonalFile)
		raw, err := readHooks(p, false)
		if err == nil && raw != nil {
			var hs []Hook
			var skipped []error
			if hs, skipped, err = parse(raw, Personal, p); err == nil {
				c.Hooks = append(c.Hooks, hs...)
			}
			errs = append(errs, skipped...)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if folder == "" {
		return c, errs
	}
	var text bytes.Buffer
	for _, rel := range []string{ProjectFile, ClaudeSettingFile} {
		p := filepath.Join(folder, rel)
		raw, err := readHooks(p, rel == ClaudeSettingFile)
		if err == nil && raw != nil {
			var hs []Hook
			var skipped []error
			hs, skipped, err = parse(raw, Project, p)
			errs = append(errs, skipped...)
			if err == nil && len(hs) > 0 {
				c.Hooks = append(c.Hooks, hs...)
				var ind bytes.Buffer
				_ = json.Indent(&ind, raw, "", "  ") // parse accepted it: valid JSON
				fmt.Fprintf(&text, "// %s\n%s\n", rel, ind.String())
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if text.Len() > 0 {
		c.Text = text.String()
		sum := sha256.Sum256([]byte(c.Text))
		c.SHA256 = hex.EncodeToString(sum[:])
	}
	return c, errs
}

// readHooks returns the raw "hooks" value of a configuration file, nil when the file or the
// key is absent. Claude Code's settings.json holds much else; only its hooks count.
func readHooks(path string, settings bool) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read hooks from %s: %w", path, err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("read hooks from %s: not a JSON object: %w", path, err)
	}
	raw, ok := doc["hooks"]
	if !ok || string(raw) == "null" {
		if settings {
			return nil, nil
		}
		return nil, fmt.Errorf("read hooks from %s: no \"hooks\" key", path)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("read hooks from %s: %w", path, err)
	}
	return compact.Bytes(), nil
}

// parse validates a "hooks" value: command hooks with a command, positive timeouts,
// compilable matchers, "onFailure" empty or "ignore"; any of those wrong refuses the whole
// file (err). Events Loopdesk does not know and hook types other than "command" (Claude
// Code has more of both) are skipped, each reported in skipped, so the rest still works.
func parse(raw json.RawMessage, src Source, path string) (hooks []Hook, skipped []error, err error) {
	var groups map[Event][]group
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, nil, fmt.Errorf("hooks in %s: %w", path, err)
	}
	events := make([]Event, 0, len(groups))
	for ev := range groups {
		events = append(events, ev)
	}
	// Unknown events share one order: their names break the tie, so the warnings about them
	// come in the same order on every read.
	sort.Slice(events, func(i, j int) bool {
		oi, oj := eventOrder(events[i]), eventOrder(events[j])
		return oi < oj || (oi == oj && events[i] < events[j])
	})
	var out []Hook
	for _, ev := range events {
		if eventOrder(ev) == len(Events) {
			skipped = append(skipped, fmt.Errorf("hooks in %s: event %q skipped: Loopdesk knows %s", path, ev, eventNames()))
			continue
		}
		for gi, g := range groups[ev] {
			if _, err := compileMatcher(g.Matcher); err != nil {
				return nil, nil, fmt.Errorf("hooks in %s: %s[%d]: matcher %q: %w", path, ev, gi, g.Matcher, err)
			}
			for hi, c := range g.Hooks {
				where := fmt.Sprintf("hooks in %s: %s[%d].hooks[%d]", path, ev, gi, hi)
				if c.Type != "command" {
					skipped = append(skipped, fmt.Errorf("%s skipped: type %q (only \"command\" hooks run)", where, c.Type))
					continue
				}
				h, err := hookOf(ev, g.Matcher, c, src, path)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %w", where, err)
				}
				out = append(out, h)
			}
		}
	}
	return out, skipped, nil
}

func hookOf(ev Event, matcher string, c command, src Source, path string) (Hook, error) {
	switch {
	case strings.TrimSpace(c.Command) == "":
		return Hook{}, fmt.Errorf("empty command")
	case c.Timeout != nil && *c.Timeout <= 0:
		return Hook{}, fmt.Errorf("timeout %v (want seconds > 0)", *c.Timeout)
	case c.OnFailure != "" && c.OnFailure != OnFailureIgnore:
		return Hook{}, fmt.Errorf("onFailure %q (want \"ignore\" or nothing)", c.OnFailure)
	}
	h := Hook{Event: ev, Matcher: matcher, Command: c.Command, Timeout: DefaultTimeout,
		IgnoreFailure: c.OnFailure == OnFailureIgnore, Source: src, File: path}
	if c.Timeout != nil {
		// Past what a Duration holds the conversion wraps to a negative timeout, which would
		// kill the hook at once: a timeout that long is the longest there is.
		h.Timeout = time.Duration(min(*c.Timeout, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second))
	}
	return h, nil
}

func eventOrder(e Event) int {
	for i, x := range Events {
		if x == e {
			return i
		}
	}
	return len(Events)
}

func eventNames() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}
