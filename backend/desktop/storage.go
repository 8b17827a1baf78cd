package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/backups"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Storage is the database file as the window shows it: the damaged-database screen (Status,
// Check, Recover, OpenAnother) and Settings → Backups. It is bound in both windows: the usual
// one, and the one that opens on a database store.Open refused, where it is the only service
// and nothing writes to the file (Check, Recover and the backups only read it).
type Storage struct {
	cfg    StorageConfig
	keeper *backups.Keeper // nil in the damaged window
}

// StorageConfig is what the window gives Storage.
type StorageConfig struct {
	Path string
	// DB is the open database; nil when Damaged says why it was refused.
	DB      *store.DB
	Damaged *store.DamagedError
	// ChooseDatabase asks the person for a database file ("" when cancelled); nil in tests.
	ChooseDatabase func() (string, error)
	// Reopen starts Loopdesk again on the database at path (main.go: the same program, its
	// arguments, LOOPDESK_DB=path). It returns only when that failed.
	Reopen func(path string) error
	// Now is the clock of the backups (time.Now when nil).
	Now func() time.Time
}

// NewStorage builds the service; the automatic backups start with Start.
func NewStorage(cfg StorageConfig) *Storage {
	s := &Storage{cfg: cfg}
	if cfg.DB != nil {
		s.keeper = &backups.Keeper{DB: cfg.DB, DBPath: cfg.Path, Dir: backups.Dir(cfg.Path), Now: cfg.Now}
	}
	return s
}

// BackupTick is how often the window looks whether a backup is due.
const BackupTick = time.Minute

// StartBackups takes the automatic backups until ctx ends (nothing in the damaged window).
// A function, not a method: every method of Storage is bound to the page.
func StartBackups(ctx context.Context, s *Storage) {
	if s.keeper == nil {
		return
	}
	t := time.NewTicker(BackupTick)
	go func() {
		defer t.Stop()
		s.keeper.Run(ctx, t.C)
	}()
}

// StorageStatus says whether the window opened on a database it refused, and why.
type StorageStatus struct {
	Path    string `json:"path"`
	Damaged bool   `json:"damaged"`
	// TooNew: the file is from a newer Loopdesk (not damaged: upgrade).
	TooNew  bool   `json:"too_new"`
	Problem string `json:"problem"`
	// Message is the message every command shows for this file.
	Message string `json:"message"`
}

// Status is what the page asks first: the usual window, or the damaged-database screen.
func (s *Storage) Status() StorageStatus {
	st := StorageStatus{Path: s.cfg.Path}
	if d := s.cfg.Damaged; d != nil {
		st.Damaged, st.TooNew, st.Problem, st.Message = true, errors.Is(d, store.ErrTooNew), d.Problem, d.Error()
	}
	return st
}

// Check lists every problem of the database (none for a healthy one), reading it only.
func (s *Storage) Check() ([]store.Problem, error) {
	ps, err := store.Check(context.Background(), s.cfg.Path)
	if ps == nil {
		ps = []store.Problem{}
	}
	return ps, err
}

// Recovered is where Recover wrote the copy and what it could not save.
type Recovered struct {
	Path   string              `json:"path"`
	Report store.RecoverReport `json:"report"`
}

// Recover copies everything readable into a new file beside the database
// (NAME.recovered-TIME.db); the database itself is left as it is.
func (s *Storage) Recover() (Recovered, error) {
	now := time.Now
	if s.cfg.Now != nil {
		now = s.cfg.Now
	}
	out := strings.TrimSuffix(s.cfg.Path, ".db") + ".recovered-" + now().UTC().Format("20060102T150405Z") + ".db"
	rep, err := store.Recover(context.Background(), s.cfg.Path, out)
	if rep.NotSaved == nil {
		rep.NotSaved = []store.Problem{}
	}
	if err != nil {
		return Recovered{}, err
	}
	return Recovered{Path: out, Report: rep}, nil
}

// OpenAnother starts Loopdesk again on another database: path, or the one the person
// chooses when path is "" (nothing happens when they cancel). A file Loopdesk would refuse
// too is refused here, with its message; a path in an existing folder where no file is yet
// makes a new, empty database.
func (s *Storage) OpenAnother(path string) error {
	path = strings.TrimSpace(path)
	if path == "" && s.cfg.ChooseDatabase != nil {
		var err error
		if path, err = s.cfg.ChooseDatabase(); err != nil || path == "" {
			return err
		}
	}
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%w: the database must be an absolute path, not %q", ErrInvalidInput, path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: no folder %s", ErrInvalidInput, filepath.Dir(path))
	}
	if err := store.CheckFile(context.Background(), path); err != nil {
		return err
	}
	if s.cfg.Reopen == nil {
		return errors.New("this window cannot open another database")
	}
	return s.cfg.Reopen(path)
}

// BackupsView is Settings → Backups: the policy, the folder, the backups there (newest
// first) and why the last one failed ("" when it did not).
type BackupsView struct {
	Schedule  backups.Schedule `json:"schedule"`
	Keep      int              `json:"keep"`
	Dir       string           `json:"dir"`
	Files     []backups.Backup `json:"files"`
	LastError string           `json:"last_error"`
}

// BackupsInput is what Save in Settings → Backups sends.
type BackupsInput struct {
	Schedule backups.Schedule `json:"schedule"`
	Keep     int              `json:"keep"`
}

var errNoBackups = fmt.Errorf("%w: the database could not be opened, so it has no backups settings", ErrInvalidInput)

// Backups is Settings → Backups as saved, with the backups in the folder.
func (s *Storage) Backups() (BackupsView, error) {
	if s.keeper == nil {
		return BackupsView{}, errNoBackups
	}
	p, err := backups.Load(context.Background(), s.cfg.DB)
	if err != nil {
		return BackupsView{}, err
	}
	files, err := backups.List(s.keeper.Dir)
	if files == nil {
		files = []backups.Backup{}
	}
	return BackupsView{Schedule: p.Schedule, Keep: p.Keep, Dir: s.keeper.Dir, Files: files, LastError: s.keeper.LastError()}, err
}

// SetBackups saves the policy (checked: off, daily or hourly; keep 1 to 100); a backup that
// is now due is taken on the next tick, and backups beyond the new Keep go with it.
func (s *Storage) SetBackups(in BackupsInput) (BackupsView, error) {
	if s.keeper == nil {
		return BackupsView{}, errNoBackups
	}
	if err := backups.Save(context.Background(), s.cfg.DB, backups.Policy(in)); err != nil {
		return BackupsView{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	return s.Backups()
}

// BackupNow takes a backup at once, whatever the schedule, and prunes beyond Keep.
func (s *Storage) BackupNow() (BackupsView, error) {
	if s.keeper == nil {
		return BackupsView{}, errNoBackups
	}
	if _, err := s.keeper.Tick(context.Background(), true); err != nil {
		return BackupsView{}, err
	}
	return s.Backups()
}
