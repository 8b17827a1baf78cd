package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Effect of an approval rule. When several rules match, deny wins (decided
// by the approval policy in backend/tools, not here).
type Effect string

// Rule effects.
const (
	EffectAllow Effect = "allow"
	EffectAsk   Effect = "ask"
	EffectDeny  Effect = "deny"
)

// Scope of an approval rule: one session, every session in a workspace, or every session.
type Scope string

// Rule scopes.
const (
	ScopeSession   Scope = "session"
	ScopeWorkspace Scope = "workspace"
	// ScopeEverywhere applies to every session of every folder; its ScopeID is "*".
	ScopeEverywhere Scope = "everywhere"
)

// Rule is a stored approval rule: Tool (a tool name) with an argument
// Pattern (empty matches any call; its syntax belongs to the policy).
// ScopeID is the session id or the workspace path.
type Rule struct {
	ID        string    `json:"id"`
	Tool      string    `json:"tool"`
	Pattern   string    `json:"pattern"`
	Effect    Effect    `json:"effect"`
	Scope     Scope     `json:"scope"`
	ScopeID   string    `json:"scope_id"`
	CreatedAt time.Time `json:"created_at"`
}

// RuleText is a rule in the words the window and the CLI show it with, the one place they are
// made: "allow write_file *.md in this session", "deny every run_shell_command call in this
// folder". A person reads the rule itself, never its id.
func RuleText(effect Effect, tool, pattern string, scope Scope) string {
	what := tool + " " + pattern
	if pattern == "" || pattern == "*" {
		what = "every " + tool + " call"
	}
	if tool == "*" {
		what = "every call"
		if pattern != "" && pattern != "*" {
			what = "every call matching " + pattern
		}
	}
	where := "in this session"
	switch scope {
	case ScopeWorkspace:
		where = "in this folder"
	case ScopeEverywhere:
		where = "everywhere"
	}
	return fmt.Sprintf("%s %s %s", effect, what, where)
}

// Text is RuleText of the rule.
func (r Rule) Text() string { return RuleText(r.Effect, r.Tool, r.Pattern, r.Scope) }

// NewRule is what AddRule needs.
type NewRule struct {
	Tool    string `json:"tool"`
	Pattern string `json:"pattern"`
	Effect  Effect `json:"effect"`
	Scope   Scope  `json:"scope"`
	ScopeID string `json:"scope_id"`
}

// AddRule stores a rule. Unknown effects or scopes, an empty tool or scope
// id are ErrInvalid; a session scope naming no session is ErrNotFound.
// Decisions themselves are stored as approval rows, not here.
func (db *DB) AddRule(ctx context.Context, n NewRule) (Rule, error) {
	r, err := db.putRule(ctx, "", n)
	if err != nil {
		return Rule{}, fmt.Errorf("add rule for %s: %w", n.Tool, err)
	}
	return r, nil
}

// ReplaceRule swaps the rule id for n in one transaction (an edit in Settings): either both
// happen or neither. The new rule has a new id.
func (db *DB) ReplaceRule(ctx context.Context, id string, n NewRule) (Rule, error) {
	r, err := db.putRule(ctx, id, n)
	if err != nil {
		return Rule{}, fmt.Errorf("replace rule %s: %w", id, err)
	}
	return r, nil
}

// putRule checks n and inserts it, deleting the rule old first when old is not "".
func (db *DB) putRule(ctx context.Context, old string, n NewRule) (Rule, error) {
	switch {
	case n.Effect != EffectAllow && n.Effect != EffectAsk && n.Effect != EffectDeny:
		return Rule{}, fmt.Errorf("%w: effect %q (want allow, ask or deny)", ErrInvalid, n.Effect)
	case n.Scope != ScopeSession && n.Scope != ScopeWorkspace && n.Scope != ScopeEverywhere:
		return Rule{}, fmt.Errorf("%w: scope %q (want session, workspace or everywhere)", ErrInvalid, n.Scope)
	case n.Tool == "" || n.ScopeID == "":
		return Rule{}, fmt.Errorf("%w: tool and scope id are required", ErrInvalid)
	}
	r := Rule{ID: newID(), Tool: n.Tool, Pattern: n.Pattern, Effect: n.Effect, Scope: n.Scope, ScopeID: n.ScopeID}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if old != "" {
			res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE id = ?`, old)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				return fmt.Errorf("rule %q: %w", old, ErrNotFound)
			}
		}
		if n.Scope == ScopeSession {
			if _, _, err := sessionTail(ctx, tx, n.ScopeID); err != nil {
				return err
			}
		}
		now := db.nowMS()
		r.CreatedAt = fromMS(now)
		_, err := tx.ExecContext(ctx, `INSERT INTO rules(id, tool, pattern, effect, scope, scope_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Tool, r.Pattern, r.Effect, r.Scope, r.ScopeID, now)
		return err
	})
	return r, err
}

// ListRules returns the rules that apply to a session: its own, those of
// its workspace and those that apply everywhere, oldest first. Either argument may be empty.
func (db *DB) ListRules(ctx context.Context, sessionID, workspace string) ([]Rule, error) {
	return db.queryRules(ctx, `WHERE (scope = 'session' AND scope_id = ?1 AND ?1 <> '')
		OR (scope = 'workspace' AND scope_id = ?2 AND ?2 <> '') OR scope = 'everywhere'`, sessionID, workspace)
}

// ListAllRules returns every saved rule, oldest first (the settings screen).
func (db *DB) ListAllRules(ctx context.Context) ([]Rule, error) {
	return db.queryRules(ctx, "")
}

func (db *DB) queryRules(ctx context.Context, where string, args ...any) ([]Rule, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, tool, pattern, effect, scope, scope_id, created_at FROM rules `+
		where+` ORDER BY created_at, rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("list rules: %w", classify(err))
	}
	defer rows.Close()
	out := []Rule{}
	for rows.Next() {
		var r Rule
		var created int64
		if err := rows.Scan(&r.ID, &r.Tool, &r.Pattern, &r.Effect, &r.Scope, &r.ScopeID, &created); err != nil {
			return nil, fmt.Errorf("list rules: %w", err)
		}
		r.CreatedAt = fromMS(created)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRule removes a rule (ErrNotFound if there is none with that id).
func (db *DB) DeleteRule(ctx context.Context, id string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("rule %q: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete rule %s: %w", id, err)
	}
	return nil
}
