package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/store"
)

// orgFlags are `sessions list --project NAME --archived --all` and `sessions project set ID...
// --project NAME`.
type orgFlags struct {
	filter  store.ListFilter
	project projectFlag
}

// projectFlag remembers whether --project was given: "" takes sessions out of their project.
type projectFlag struct {
	name string
	set  bool
}

func (p *projectFlag) String() string     { return p.name }
func (p *projectFlag) Set(v string) error { p.name, p.set = v, true; return nil }

func (o *orgFlags) flags(fs *flag.FlagSet, cmd string) {
	fs.Var(&o.project, "project", "project name")
	if cmd == "list" {
		fs.BoolVar(&o.filter.Archived, "archived", false, "archived sessions only")
		fs.BoolVar(&o.filter.All, "all", false, "archived or not")
	}
}

// check reads what the organising commands need from the positional arguments.
func (o *orgFlags) check(cmd string, args []string) error {
	switch cmd {
	case "list":
		if o.project.set && strings.TrimSpace(o.project.name) == "" {
			return sessUsagef("--project needs a NAME")
		}
		o.filter.Project = strings.TrimSpace(o.project.name)
		if o.filter.Archived && o.filter.All {
			return sessUsagef("--archived and --all: choose one")
		}
	case "delete", "archive", "unarchive":
		if len(args) == 0 {
			return sessUsagef("%s needs at least one session ID", cmd)
		}
	case "project":
		if len(args) == 0 || args[0] != "set" {
			return sessUsagef("project: want `project set ID... --project NAME`")
		}
		if len(args) < 2 {
			return sessUsagef("project set needs at least one session ID")
		}
		if !o.project.set {
			return sessUsagef("project set needs --project NAME (\"\" for none)")
		}
	}
	return nil
}

// organise runs archive, unarchive, project set and compact-db.
func (c *sessCmd) organise(ctx context.Context, db *store.DB) error {
	switch c.name {
	case "archive", "unarchive":
		if err := db.SetArchived(ctx, c.args, c.name == "archive"); err != nil {
			return err
		}
		for _, id := range c.args {
			v := map[string]any{"session_id": id, "archived": c.name == "archive"}
			if err := c.emit(v, fmt.Sprintf("%sd %s\n", c.name, id)); err != nil {
				return err
			}
		}
		return nil
	case "project":
		ids := c.args[1:]
		if err := db.SetProject(ctx, ids, c.org.project.name); err != nil {
			return err
		}
		name := strings.TrimSpace(c.org.project.name)
		for _, id := range ids {
			human := fmt.Sprintf("%s is in project %q\n", id, name)
			if name == "" {
				human = fmt.Sprintf("%s is in no project\n", id)
			}
			if err := c.emit(map[string]string{"session_id": id, "project": name}, human); err != nil {
				return err
			}
		}
		return nil
	}
	before, after, err := db.Compact(ctx)
	if err != nil {
		return err
	}
	return c.emit(map[string]any{"path": after.Path, "bytes_before": before.Bytes, "bytes_after": after.Bytes},
		fmt.Sprintf("compacted %s: %s -> %s\n", after.Path, humanBytes(before.Bytes), humanBytes(after.Bytes)))
}

// delete deletes each session (chat.DeleteSession), then gives the space back. It stops at
// the first that cannot go; those before it are deleted.
func (c *sessCmd) delete(ctx context.Context, db *store.DB, ids []string) error {
	var freed bool
	defer func() {
		if freed {
			db.Reclaim(ctx) // the space comes back whether or not a later one failed
		}
	}()
	for _, id := range ids {
		d, err := chat.DeleteSession(ctx, db, id, chat.DeleteOptions{Force: c.fk.removeFolder})
		if errors.Is(err, chat.ErrNotForkFolder) {
			return fmt.Errorf("--remove-folder: %w", err)
		}
		if d.Rows > 0 || d.Bytes > 0 {
			freed = true
		}
		if err != nil {
			return err
		}
		if c.json {
			if err := sessJSONLine(c.stdout, d); err != nil {
				return err
			}
			continue
		}
		human := fmt.Sprintf("deleted %s: %d rows, %s\n", id, d.Rows, humanBytes(d.Bytes))
		if d.RemovedFolder != "" {
			human += fmt.Sprintf("removed its folder %s\n", d.RemovedFolder)
		}
		if d.Branch != "" {
			human += fmt.Sprintf("removed its branch %s\n", d.Branch)
		}
		if d.KeptFolder != "" {
			human += fmt.Sprintf("its folder is kept: %s (%s; remove it with --remove-folder, or delete the folder)\n", d.KeptFolder, d.KeptReason)
		}
		if _, err := fmt.Fprint(c.stdout, human); err != nil {
			return err
		}
	}
	return nil
}

// humanBytes: 512 B, 3.4 KiB, 12.0 MiB, 1.2 GiB, as the window shows sizes.
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), 0
	for f >= 1024 && i < 3 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", f, []string{"B", "KiB", "MiB", "GiB"}[i])
}
