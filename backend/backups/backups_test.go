package backups_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/backups"
	"github.com/loopdesk/loopdesk/backend/store"
)

func keeper(t *testing.T, clock *time.Time) *backups.Keeper {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "loopdesk.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateSession(context.Background(), store.NewSession{Title: "kept", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	return &backups.Keeper{DB: db, DBPath: path, Dir: backups.Dir(path), Now: func() time.Time { return *clock }}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	fs, err := backups.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// Daily by default, keeping 7: ten days of a window ticking every ten minutes leave the
// newest seven, one a day, each a database that opens and holds the session.
func TestDailyKeepsSeven(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	k := keeper(t, &clock)
	taken := 0
	for step := 0; step < 10*24*6; step++ {
		name, err := k.Tick(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if name != "" {
			taken++
		}
		clock = clock.Add(10 * time.Minute)
	}
	if taken != 10 {
		t.Errorf("took %d backups in ten days, want 10", taken)
	}
	got := names(t, k.Dir)
	if len(got) != 7 || got[0] != "loopdesk-20261210T090000Z.db" || got[6] != "loopdesk-20261204T090000Z.db" {
		t.Fatalf("kept %v", got)
	}
	db, err := store.Open(ctx, filepath.Join(k.Dir, got[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if ss, err := db.ListSessions(ctx); err != nil || len(ss) != 1 {
		t.Fatalf("the newest backup holds %d sessions: %v", len(ss), err)
	}
}

func TestHourlyOffAndKeep(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	k := keeper(t, &clock)
	if err := backups.Save(ctx, k.DB, backups.Policy{Schedule: backups.Hourly, Keep: 3}); err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 5*6; step++ { // five hours, every ten minutes
		if _, err := k.Tick(ctx, false); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(10 * time.Minute)
	}
	if got := names(t, k.Dir); len(got) != 3 || got[0] != "loopdesk-20261201T130000Z.db" {
		t.Fatalf("hourly, keep 3: %v", got)
	}
	if err := backups.Save(ctx, k.DB, backups.Policy{Schedule: backups.Off, Keep: 3}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(48 * time.Hour)
	if name, err := k.Tick(ctx, false); name != "" || err != nil {
		t.Fatalf("off took %q (%v)", name, err)
	}
	if name, err := k.Tick(ctx, true); name == "" || err != nil {
		t.Fatalf("Back up now with the schedule off: %q %v", name, err)
	}
	for _, bad := range []backups.Policy{{Schedule: "weekly", Keep: 3}, {Schedule: backups.Daily, Keep: 0}} {
		if err := backups.Save(ctx, k.DB, bad); err == nil {
			t.Errorf("saved %+v", bad)
		}
	}
	// Files not named as backups are never listed or pruned.
	other := filepath.Join(k.Dir, "my-notes.db")
	os.WriteFile(other, []byte("x"), 0o600)
	if _, err := backups.Prune(k.Dir, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("prune removed a file that is not a backup")
	}
}

// A backup that fails its check is removed and never costs an earlier good one.
func TestFailedBackupKeepsTheEarlierOnes(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	k := keeper(t, &clock)
	if err := backups.Save(ctx, k.DB, backups.Policy{Schedule: backups.Daily, Keep: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Tick(ctx, false); err != nil {
		t.Fatal(err)
	}
	k.DBPath = filepath.Join(t.TempDir(), "missing.db") // the source cannot be read
	clock = clock.Add(25 * time.Hour)
	if _, err := k.Tick(ctx, false); err == nil || k.LastError() == "" {
		t.Fatal("a backup that could not be taken was not reported")
	}
	if got := names(t, k.Dir); len(got) != 1 || got[0] != "loopdesk-20261201T090000Z.db" {
		t.Fatalf("after a failed backup: %v", got)
	}
}
