package telemetry

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Store is the journal a backfill reads: Journal plus the list of sessions.
type Store interface {
	Journal
	ListSessions(ctx context.Context) ([]store.Session, error)
	Children(ctx context.Context, parentID string) ([]store.Session, error)
}

// BackfillOptions choose what `loopdesk otel export` sends.
type BackfillOptions struct {
	Since    time.Time // runs started at or after (zero: every run)
	Sessions []string  // these sessions and their task children only (empty: every session)
}

// Sent is what a backfill sent.
type Sent struct {
	Sessions int `json:"sessions"`
	Runs     int `json:"runs"`
	Spans    int `json:"spans"`
}

// batch bounds one export request.
const batch = 512

// Backfill sends past runs from the journal, with their recorded times and the same ids a live
// export gave them. A failed export stops it with the collector's error.
func Backfill(ctx context.Context, cfg Config, db Store, opt BackfillOptions) (Sent, error) {
	exp, err := cfg.TraceExporter(ctx)
	if err != nil {
		return Sent{}, err
	}
	ids, err := chosen(ctx, db, opt.Sessions)
	if err != nil {
		_ = exp.Shutdown(ctx)
		return Sent{}, err
	}
	b := Builder{Journal: db, Resource: cfg.Resource(), Contents: cfg.Contents}
	var sent Sent
	var pending []sdktrace.ReadOnlySpan
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		if err := exp.ExportSpans(ctx, pending); err != nil {
			return fmt.Errorf("send to %s: %w", cfg.Endpoint, err)
		}
		sent.Spans += len(pending)
		pending = nil
		return nil
	}
	for _, id := range ids {
		runs := 0
		spans, err := b.Session(ctx, id, func(r store.Run) bool {
			keep := !r.StartedAt.Before(opt.Since)
			if keep {
				runs++
			}
			return keep
		})
		if err == nil && runs > 0 {
			sent.Sessions++
			sent.Runs += runs
			pending = append(pending, spans...)
			if len(pending) >= batch {
				err = flush()
			}
		}
		if err != nil {
			_ = exp.Shutdown(ctx)
			return sent, err
		}
	}
	err = flush()
	return sent, errors.Join(err, exp.Shutdown(ctx))
}

// chosen lists the sessions to read: the named ones with their task children (an unknown one
// is an error), else every session.
func chosen(ctx context.Context, db Store, named []string) ([]string, error) {
	if len(named) == 0 {
		all, err := db.ListSessions(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(all))
		for i, s := range all {
			out[i] = s.ID
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(id string) error
	walk = func(id string) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		out = append(out, id)
		kids, err := db.Children(ctx, id)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := walk(k.ID); err != nil {
				return err
			}
		}
		return nil
	}
	for _, id := range named {
		if _, err := db.GetSession(ctx, id); err != nil {
			return nil, err
		}
		if err := walk(id); err != nil {
			return nil, err
		}
	}
	return out, nil
}
