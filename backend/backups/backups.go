// Package backups keeps the window's automatic backups of the database: a checked copy
// (store.Backup, SQLite's online backup) every day or every hour while the window runs, the
// newest Keep of them kept, in a backups folder beside the database
// ($XDG_DATA_HOME/loopdesk/backups/ for the default one).
//
// The contract:
//   - A backup is taken when the newest one in the folder is older than the schedule's
//     interval (or there is none), checked by the time it is given to Keeper.Tick (the
//     window ticks every minute, the first a minute after it starts); so a window opened once
//     a day still backs up daily, and restarting it does not back up again.
//   - A backup that fails its check is deleted at once and never counts: pruning removes only
//     the oldest backups beyond Keep, and only after a new one was written and checked.
//   - Only files named as Take names them (loopdesk-YYYYMMDDTHHMMSSZ.db) are listed or
//     pruned; nothing else in the folder is touched.
package backups

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Schedule is how often the window backs up.
type Schedule string

const (
	Off    Schedule = "off"
	Daily  Schedule = "daily"
	Hourly Schedule = "hourly"
)

// Policy is Settings → Backups.
type Policy struct {
	Schedule Schedule `json:"schedule"`
	Keep     int      `json:"keep"`
}

// Default is the policy of a database whose person never changed it.
var Default = Policy{Schedule: Daily, Keep: 7}

// MaxKeep bounds Keep: each backup is a whole copy of the journal.
const MaxKeep = 100

// Check refuses a policy Save would not keep.
func (p Policy) Check() error {
	switch p.Schedule {
	case Off, Daily, Hourly:
	default:
		return fmt.Errorf("backups: schedule %q: want off, daily or hourly", p.Schedule)
	}
	if p.Keep < 1 || p.Keep > MaxKeep {
		return fmt.Errorf("backups: keep %d: want 1 to %d", p.Keep, MaxKeep)
	}
	return nil
}

// Every is the interval between backups (0 when off).
func (p Policy) Every() time.Duration {
	switch p.Schedule {
	case Daily:
		return 24 * time.Hour
	case Hourly:
		return time.Hour
	}
	return 0
}

const settingKey = "backups"

// Load reads the policy from the database's settings (Default when none was saved).
func Load(ctx context.Context, db *store.DB) (Policy, error) {
	raw, ok, err := db.GetSetting(ctx, settingKey)
	if err != nil || !ok {
		return Default, err
	}
	p := Default
	if err := json.Unmarshal([]byte(raw), &p); err != nil || p.Check() != nil {
		return Default, nil // a value this build cannot read: the default, until saved again
	}
	return p, nil
}

// Save checks and keeps the policy in the database's settings.
func Save(ctx context.Context, db *store.DB, p Policy) error {
	if err := p.Check(); err != nil {
		return err
	}
	b, _ := json.Marshal(p)
	return db.SetSetting(ctx, settingKey, string(b))
}

// Dir is the backups folder of the database at dbPath.
func Dir(dbPath string) string { return filepath.Join(filepath.Dir(dbPath), "backups") }

// Backup is one backup in the folder.
type Backup struct {
	Name string    `json:"name"`
	Path string    `json:"path"`
	Size int64     `json:"size"`
	Time time.Time `json:"time"`
}

const nameLayout = "20060102T150405Z"

func fileName(t time.Time) string { return "loopdesk-" + t.UTC().Format(nameLayout) + ".db" }

// List returns the backups in dir, newest first (none when the folder does not exist).
func List(dir string) ([]Backup, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the backups in %s: %w", dir, err)
	}
	var out []Backup
	for _, e := range entries {
		stamp, ok := strings.CutPrefix(strings.TrimSuffix(e.Name(), ".db"), "loopdesk-")
		t, err := time.Parse(nameLayout, stamp)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".db") || !e.Type().IsRegular() {
			continue
		}
		f := Backup{Name: e.Name(), Path: filepath.Join(dir, e.Name()), Time: t}
		if fi, err := e.Info(); err == nil {
			f.Size = fi.Size()
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out, nil
}

// Due says whether a backup is due at now under p, given the backups there are.
func Due(p Policy, files []Backup, now time.Time) bool {
	if p.Every() == 0 {
		return false
	}
	return len(files) == 0 || !now.Before(files[0].Time.Add(p.Every()))
}

// Take writes a checked backup of the database at dbPath into dir, named for now. A copy
// that fails its check is removed and reported.
func Take(ctx context.Context, dbPath, dir string, now time.Time) (Backup, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Backup{}, fmt.Errorf("create the backups folder: %w", err)
	}
	dst := filepath.Join(dir, fileName(now))
	problems, err := store.Backup(ctx, dbPath, dst)
	if err != nil {
		return Backup{}, err
	}
	if len(problems) > 0 {
		os.Remove(dst)
		return Backup{}, fmt.Errorf("the backup of %s failed its check (%s: %s); the earlier backups are kept", dbPath, problems[0].Problem, problems[0].Detail)
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return Backup{}, err
	}
	return Backup{Name: filepath.Base(dst), Path: dst, Size: fi.Size(), Time: now.UTC().Truncate(time.Second)}, nil
}

// Prune removes the oldest backups beyond keep and returns their names.
func Prune(dir string, keep int) ([]string, error) {
	files, err := List(dir)
	if err != nil || len(files) <= keep {
		return nil, err
	}
	var gone []string
	for _, f := range files[keep:] {
		if err := os.Remove(f.Path); err != nil {
			return gone, fmt.Errorf("remove the old backup %s: %w", f.Path, err)
		}
		gone = append(gone, f.Name)
	}
	return gone, nil
}

// Keeper takes the automatic backups of one database while the window runs.
type Keeper struct {
	DB     *store.DB
	DBPath string
	Dir    string
	// Now is the clock (time.Now when nil); tests pass their own.
	Now func() time.Time

	mu      sync.Mutex // one backup at a time, and guards lastErr
	lastErr string
}

func (k *Keeper) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// Tick takes a backup when one is due, then prunes beyond Keep; taken is the new backup's
// name, "" when none was due. force takes one whatever the schedule (Back up now).
func (k *Keeper) Tick(ctx context.Context, force bool) (taken string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	defer func() {
		if err != nil {
			k.lastErr = err.Error()
		} else if taken != "" {
			k.lastErr = ""
		}
	}()
	p, err := Load(ctx, k.DB)
	if err != nil {
		return "", err
	}
	files, err := List(k.Dir)
	if err != nil {
		return "", err
	}
	now := k.now()
	if !force && !Due(p, files, now) {
		return "", nil
	}
	if len(files) > 0 && fileName(now) == files[0].Name {
		return "", nil // one a second at most: the name is the time
	}
	f, err := Take(ctx, k.DBPath, k.Dir, now)
	if err != nil {
		return "", err
	}
	if _, err := Prune(k.Dir, p.Keep); err != nil {
		return f.Name, err
	}
	return f.Name, nil
}

// LastError is why the last backup failed ("" after a good one).
func (k *Keeper) LastError() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastErr
}

// Run ticks on every tick until ctx ends. Not at once: a backup due when the window starts
// (a large journal's copy and check) waits for the first tick, out of the window's start.
func (k *Keeper) Run(ctx context.Context, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		_, _ = k.Tick(ctx, false) // LastError keeps the reason for Settings → Backups
	}
}
