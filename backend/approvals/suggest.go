package approvals

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// SuggestedRule is an allow rule the report offers: saved, it applies to the session of the
// calls it would have spared (scope session) or to their folder (scope workspace).
type SuggestedRule struct {
	Tool    string      `json:"tool"`
	Pattern string      `json:"pattern"`
	Scope   store.Scope `json:"scope"`
}

// Suggestion is one rule with the prompts it would have removed (the person's approvals it
// matches) and every past call in its scope it would have allowed, whoever decided them.
type Suggestion struct {
	Rule           SuggestedRule `json:"rule"`
	PromptsRemoved int           `json:"prompts_removed"`
	WouldAllow     []CallRef     `json:"would_allow"`
}

// minPrompts is the fewest prompts a suggestion must remove: a rule for one past call is that
// call's Always allow, which the card already offers.
const minPrompts = 2

// shellControl are the characters that chain or redirect a command (as the policy reads them).
const shellControl = ";&|\n`$<>()"

// Suggest offers, per folder, the narrowest rules that would have spared the person the most
// prompts: candidates are the exact command, its word prefixes ("go test *"), the path, its
// folder's files of one extension ("src/*.go") or the folder ("src/**"), and a whole MCP
// tool, taken from the calls the person approved. A candidate is dropped when the policy's
// matcher says it would allow any past call that was denied by a person, a rule or a hook,
// that asked for network, or that names a path outside the folder. Then, greedily, the
// candidate removing the most prompts not yet removed wins, the narrowest (longest pattern)
// of equals first.
func Suggest(rows []decided) []Suggestion {
	byFolder := map[string][]decided{}
	var folders []string
	for _, d := range rows {
		if _, ok := byFolder[d.workspace]; !ok {
			folders = append(folders, d.workspace)
		}
		byFolder[d.workspace] = append(byFolder[d.workspace], d)
	}
	sort.Strings(folders)
	out := []Suggestion{}
	for _, f := range folders {
		out = append(out, suggestIn(f, byFolder[f])...)
	}
	return out
}

// candidate is a rule with the person's approvals it matches (indexes into the folder's rows).
type candidate struct {
	rule   tools.Rule
	covers []int
}

func suggestIn(root string, rows []decided) []Suggestion {
	var cands []candidate
	seen := map[[2]string]bool{}
	for _, d := range rows {
		if !d.byPerson() || !d.approved || blocks(d, root) {
			continue
		}
		for _, p := range patterns(d.call, root) {
			key := [2]string{d.call.Name, p}
			if seen[key] {
				continue
			}
			seen[key] = true
			if c, ok := prove(tools.Rule{ID: "suggested", Tool: d.call.Name, Pattern: p, Effect: store.EffectAllow}, root, rows); ok {
				cands = append(cands, c)
			}
		}
	}
	removed := map[int]bool{}
	var out []Suggestion
	for {
		best, n := -1, 0
		for i, c := range cands {
			k := 0
			for _, j := range c.covers {
				if !removed[j] {
					k++
				}
			}
			if k > n || k == n && k > 0 && narrower(c.rule.Pattern, cands[best].rule.Pattern) {
				best, n = i, k
			}
		}
		if n < minPrompts {
			return out
		}
		c := cands[best]
		for _, j := range c.covers {
			removed[j] = true
		}
		out = append(out, suggestion(c, root, rows))
	}
}

// narrower orders candidates of equal reach: the longer pattern is the narrower, then by text
// so the report is the same every time.
func narrower(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a < b
}

// prove matches rule against every row of the folder with the policy's matcher: ok is false
// when it would allow a row that blocks it (blocks); covers are the person's approvals it matches.
func prove(rule tools.Rule, root string, rows []decided) (candidate, bool) {
	c := candidate{rule: rule}
	for i, d := range rows {
		if !rule.Allows(d.call, root) {
			continue
		}
		if blocks(d, root) {
			return candidate{}, false
		}
		if d.byPerson() && d.approved {
			c.covers = append(c.covers, i)
		}
	}
	return c, len(c.covers) > 0
}

// blocks reports whether no suggested rule may allow d: it was refused by a person, a rule or
// a hook, it asked for network, or it names a path outside the folder.
func blocks(d decided, root string) bool {
	if !d.approved && (d.byPerson() || strings.HasPrefix(d.by, "rule:") || d.by == tools.ByHook) {
		return true
	}
	if d.network {
		return true
	}
	subject, isShell := tools.RuleSubject(d.call, root)
	return !isShell && subject != "" && outside(subject)
}

// outside reports whether a rule subject (a path, relative to the folder when inside it)
// lies outside the folder.
func outside(p string) bool { return path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") }

// patterns are the candidate patterns for one approved call, narrowest first.
func patterns(call tools.Call, root string) []string {
	if strings.HasPrefix(call.Name, "mcp__") {
		return []string{""}
	}
	subject, isShell := tools.RuleSubject(call, root)
	switch {
	case subject == "" || subject == ".":
		return nil
	case isShell:
		out := []string{subject}
		if strings.ContainsAny(subject, shellControl+"*") {
			return out // a chain or a glob: only itself
		}
		words := strings.Fields(subject)
		for k := len(words) - 1; k >= 1; k-- {
			out = append(out, strings.Join(words[:k], " ")+" *")
		}
		return out
	case outside(subject) || strings.ContainsAny(subject, "*?["):
		return nil
	}
	out := []string{subject}
	dir := path.Dir(subject)
	if dir == "." {
		return out // a pattern without "/" would match the name in any folder
	}
	if ext := path.Ext(subject); ext != "" {
		out = append(out, dir+"/*"+ext)
	}
	return append(out, dir+"/**")
}

// suggestion is c with its scope (the one session of the prompts it removes, else the folder)
// and every row in that scope it would allow.
func suggestion(c candidate, root string, rows []decided) Suggestion {
	session := rows[c.covers[0]].ref.SessionID
	scope := store.ScopeSession
	for _, j := range c.covers {
		if rows[j].ref.SessionID != session {
			scope = store.ScopeWorkspace
		}
	}
	s := Suggestion{Rule: SuggestedRule{Tool: c.rule.Tool, Pattern: c.rule.Pattern, Scope: scope},
		PromptsRemoved: len(c.covers), WouldAllow: []CallRef{}}
	for _, d := range rows {
		if (scope == store.ScopeWorkspace || d.ref.SessionID == session) && c.rule.Allows(d.call, root) {
			s.WouldAllow = append(s.WouldAllow, d.ref)
		}
	}
	return s
}

// Accept saves s as an allow rule, as Always allow saves one: for the session of its first
// call (scope session) or that session's folder (scope workspace). A suggestion naming no
// call, or another scope, is refused (store.ErrInvalid).
func Accept(ctx context.Context, db *store.DB, s Suggestion) (store.Rule, error) {
	if len(s.WouldAllow) == 0 || s.Rule.Tool == "" {
		return store.Rule{}, fmt.Errorf("accept suggestion: %w: it names no tool or past call", store.ErrInvalid)
	}
	scopeID := s.WouldAllow[0].SessionID
	switch s.Rule.Scope {
	case store.ScopeSession:
	case store.ScopeWorkspace:
		sess, err := db.GetSession(ctx, scopeID)
		if err != nil {
			return store.Rule{}, fmt.Errorf("accept suggestion: %w", err)
		}
		scopeID = sess.Workspace
	default:
		return store.Rule{}, fmt.Errorf("accept suggestion: %w: scope %q", store.ErrInvalid, s.Rule.Scope)
	}
	return db.AddRule(ctx, store.NewRule{Tool: s.Rule.Tool, Pattern: s.Rule.Pattern, Effect: store.EffectAllow,
		Scope: s.Rule.Scope, ScopeID: scopeID})
}
