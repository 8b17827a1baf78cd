package mcp

import (
	"os"
	"sort"
	"strings"
)

// safeEnvNames are the variables of the app's environment every stdio server
// gets: what programs need to find binaries, locale, home and temp folders and a
// display. Anything else (OPENAI_API_KEY, cloud tokens, LOOPDESK_*) reaches a
// server only when its "env" sets it, e.g. "GITHUB_TOKEN": "${GITHUB_TOKEN}".
var safeEnvNames = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TERM": true, "TZ": true,
	"TMPDIR": true, "TMP": true, "TEMP": true,
	"DISPLAY": true, "WAYLAND_DISPLAY": true,
}

var safeEnvPrefixes = []string{"LC_", "XDG_"}

func safeEnvName(name string) bool {
	if safeEnvNames[name] {
		return true
	}
	for _, p := range safeEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// serverEnv is the environment of a stdio server: the safe part of base
// (normally os.Environ()) plus the entry's own env, its values expanded
// against base. The result is sorted, so a server sees the same order each start.
func serverEnv(base []string, own map[string]string) []string {
	lookup := envLookup(base)
	vars := make(map[string]string)
	for _, kv := range base {
		name, val, ok := strings.Cut(kv, "=")
		if ok && safeEnvName(name) {
			vars[name] = val
		}
	}
	for name, val := range own {
		vars[name] = expand(val, lookup)
	}
	out := make([]string, 0, len(vars))
	for name, val := range vars {
		out = append(out, name+"="+val)
	}
	sort.Strings(out)
	return out
}

func envLookup(env []string) func(string) (string, bool) {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if name, val, ok := strings.Cut(kv, "="); ok {
			m[name] = val
		}
	}
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// expand replaces ${VAR} and ${VAR:-default} (the syntax Claude Code's config
// uses). A bare $VAR is left alone: it is common inside arguments meant for a
// shell the server starts.
func expand(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		expr := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(expr, ":-")
		if v, ok := lookup(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// expandAll applies expand to each value of m (nil stays nil).
func expandAll(m map[string]string, lookup func(string) (string, bool)) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expand(v, lookup)
	}
	return out
}

func osLookup(name string) (string, bool) { return os.LookupEnv(name) }
