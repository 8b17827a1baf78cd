package desktop_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/store/storetest"
)

// damagedJournal writes sessions through the store, closes it, and overwrites a leaf page
// of its rows.
func damagedJournal(t *testing.T) (string, *store.DamagedError) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 4; s++ {
		sess, err := db.CreateSession(context.Background(), store.NewSession{Title: fmt.Sprint("s", s), Workspace: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30; i++ {
			if _, err := db.Append(context.Background(), sess.ID, "", store.NewChunk{Kind: store.KindUser,
				Payload: store.UserPayload{Text: strings.Repeat(fmt.Sprintf("row %d ", i), 40)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	if _, err := storetest.DamageMiddleLeaf(path); err != nil {
		t.Fatal(err)
	}
	_, err = store.Open(context.Background(), path)
	var de *store.DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("open the damaged file: %v", err)
	}
	return path, de
}

func TestDamagedWindowChecksRecoversAndOpensAnother(t *testing.T) {
	path, de := damagedJournal(t)
	before := storetest.Hash(path)
	var reopened string
	s := desktop.NewStorage(desktop.StorageConfig{Path: path, Damaged: de, Reopen: func(p string) error { reopened = p; return nil },
		Now: func() time.Time { return time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC) }})
	st := s.Status()
	if !st.Damaged || st.TooNew || st.Message != de.Error() {
		t.Fatalf("status %+v", st)
	}
	ps, err := s.Check()
	if err != nil || len(ps) == 0 {
		t.Fatalf("check: %v %+v", err, ps)
	}
	r, err := s.Recover()
	if err != nil || r.Report.Sessions != 4 || len(r.Report.NotSaved) == 0 {
		t.Fatalf("recover: %v %+v", err, r)
	}
	if !strings.HasSuffix(r.Path, "loopdesk.recovered-20261207T120000Z.db") {
		t.Errorf("recovered into %s", r.Path)
	}
	if err := s.OpenAnother(path); !errors.Is(err, store.ErrDamaged) || reopened != "" {
		t.Errorf("opening the damaged file again: %v (reopened %q)", err, reopened)
	}
	if err := s.OpenAnother("relative.db"); err == nil {
		t.Error("a relative path was opened")
	}
	if err := s.OpenAnother(r.Path); err != nil || reopened != r.Path {
		t.Errorf("open the recovered copy: %v (reopened %q)", err, reopened)
	}
	if _, err := s.Backups(); err == nil {
		t.Error("the damaged window has backups settings")
	}
	if storetest.Hash(path) != before {
		t.Error("the damaged window wrote to the file")
	}
}

func TestBackupsSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopdesk.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := desktop.NewStorage(desktop.StorageConfig{Path: path, DB: db})
	v, err := s.Backups()
	if err != nil || v.Schedule != "daily" || v.Keep != 7 || len(v.Files) != 0 || v.Dir != filepath.Join(filepath.Dir(path), "backups") {
		t.Fatalf("default: %+v %v", v, err)
	}
	if _, err := s.SetBackups(desktop.BackupsInput{Schedule: "weekly", Keep: 3}); err == nil {
		t.Error("saved a weekly schedule")
	}
	if v, err = s.SetBackups(desktop.BackupsInput{Schedule: "hourly", Keep: 2}); err != nil || v.Schedule != "hourly" || v.Keep != 2 {
		t.Fatalf("save: %+v %v", v, err)
	}
	if v, err = s.BackupNow(); err != nil || len(v.Files) != 1 || v.LastError != "" {
		t.Fatalf("back up now: %+v %v", v, err)
	}
	if ps, err := store.Check(context.Background(), v.Files[0].Path); err != nil || len(ps) != 0 {
		t.Fatalf("the backup fails its check: %v %+v", err, ps)
	}
	if s.Status().Damaged {
		t.Error("a healthy database reported damaged")
	}
}
