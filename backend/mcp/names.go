package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// MaxNameLen is the longest function name OpenAI-compatible servers accept.
const MaxNameLen = 64

// NamePrefix starts every model-facing MCP tool name; approval rules can
// match a whole server with NamePrefix + server + "__*".
const NamePrefix = "mcp__"

// ToolRef is one server tool as the server names it.
type ToolRef struct {
	Server string
	Tool   string
}

// NameMapping is how one server tool reaches the model, for Settings to show.
type NameMapping struct {
	Name   string `json:"name"` // model-facing
	Server string `json:"server"`
	Tool   string `json:"tool"` // as the server names it
	// Note says why Name is not simply mcp__<server>__<tool>: characters
	// replaced, shortened, or renamed after a collision. Empty otherwise.
	Note string `json:"note,omitempty"`
}

// BaseName is mcp__<server>__<tool> with every character outside
// [A-Za-z0-9_-] replaced by '_', shortened to MaxNameLen with a hash of the
// original pair when longer. Collisions are resolved by AssignNames.
func BaseName(server, tool string) string {
	name := NamePrefix + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= MaxNameLen {
		return name
	}
	return withHash(name, server, tool)
}

// withHash cuts name so that "_" and eight hex digits of the original pair fit
// in MaxNameLen. The hash is of the original names, so it is the same in every
// run and differs between pairs that shorten to the same prefix.
func withHash(name, server, tool string) string {
	h := pairHash(server, tool)
	return name[:min(len(name), MaxNameLen-1-len(h))] + "_" + h
}

func pairHash(server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:4])
}

func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// AssignNames gives every ref a distinct model-facing name. The result does not
// depend on the order of refs: among refs whose BaseName collides, the one that
// sorts first by (server, tool) keeps it and the others get the hash suffix.
func AssignNames(refs []ToolRef) []NameMapping {
	sorted := append([]ToolRef(nil), refs...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Server != sorted[j].Server {
			return sorted[i].Server < sorted[j].Server
		}
		return sorted[i].Tool < sorted[j].Tool
	})
	taken := make(map[string]bool, len(sorted))
	byRef := make(map[ToolRef]NameMapping, len(sorted))
	for _, r := range sorted {
		if _, dup := byRef[r]; dup {
			continue
		}
		m := NameMapping{Name: BaseName(r.Server, r.Tool), Server: r.Server, Tool: r.Tool}
		plain := NamePrefix + r.Server + "__" + r.Tool
		switch {
		case len(plain) > MaxNameLen:
			m.Note = "shortened to 64 characters"
		case m.Name != plain:
			m.Note = "characters outside [A-Za-z0-9_-] replaced by _"
		}
		if taken[m.Name] {
			m.Name = withHash(NamePrefix+sanitize(r.Server)+"__"+sanitize(r.Tool), r.Server, r.Tool)
			m.Note = "renamed: another tool has the same name"
		}
		taken[m.Name] = true
		byRef[r] = m
	}
	out := make([]NameMapping, 0, len(refs))
	seen := make(map[ToolRef]bool, len(refs))
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, byRef[r])
		}
	}
	return out
}
