package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Mode is whether shell commands run in the sandbox.
type Mode string

// The Go name of "auto" is ModeBestEffort because tools.ModeAuto, the approval mode, means
// the opposite ("everything runs"); the value stays "auto", as the flag and setting spell it.
const (
	ModeBestEffort Mode = "auto" // confine when a sandbox can be made, else run unconfined and say so (the default)
	ModeOn         Mode = "on"   // always confine; refuse a command when no sandbox can be made
	ModeOff        Mode = "off"  // never confine
)

// ParseMode reads a --sandbox flag or setting value; "" is ModeBestEffort.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeBestEffort, nil
	case ModeBestEffort, ModeOn, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want on, off or auto", s)
}

// Options are the per-command choices.
type Options struct {
	Dir     string // the folder the command may write; absolute, symlinks resolved
	Network bool   // share the host's network
}

// Sandbox builds bubblewrap command lines. It is immutable after Detect.
type Sandbox struct {
	bwrap   string   // absolute path of bwrap
	version string   // "bubblewrap 0.8.0"
	home    string   // the user's home, hidden behind an empty tmpfs; "" when unknown or "/"
	hidden  []string // further folders hidden the same way (the app's config and data)
	helper  string   // loopdesk-sandbox-exec on the host, "" without the Landlock layer
	abi     int      // the kernel's Landlock ABI when helper is set
	noLL    string   // why there is no Landlock layer
}

// helperName is the Landlock helper's file name; helperAt is where the sandbox
// sees it (under the sandbox's own empty /run, so a helper inside the hidden
// home is still reachable).
const (
	helperName = "loopdesk-sandbox-exec"
	helperAt   = "/run/" + helperName
)

// Name says which sandbox this is and its layers, for notices and logs
// ("bubblewrap 0.8.0 + Landlock ABI 7").
func (s *Sandbox) Name() string {
	if s.helper != "" {
		return fmt.Sprintf("%s + Landlock ABI %d", s.version, s.abi)
	}
	return s.version + " (no Landlock layer: " + s.noLL + ")"
}

// Landlock reports whether commands also get the Landlock layer, and if not, why.
func (s *Sandbox) Landlock() (bool, string) { return s.helper != "", s.noLL }

// Args returns bwrap's arguments (without argv[0] and the command) for o. The order
// matters: later mounts cover earlier ones, so the folder is bound last and stays
// visible inside a hidden home or /tmp.
func (s *Sandbox) Args(o Options) []string {
	a := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		// /run holds sockets (D-Bus, Docker, systemd) that a read-only mount does not
		// stop anyone from connecting to.
		"--tmpfs", "/run",
	}
	if o.Network {
		a = append(a, "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve")
	}
	if s.home != "" {
		a = append(a, "--tmpfs", s.home)
	}
	for _, h := range s.hidden {
		a = append(a, "--tmpfs", h)
	}
	a = append(a,
		"--bind", o.Dir, o.Dir,
		"--chdir", o.Dir,
		"--unshare-all",
		"--cap-drop", "ALL",
		"--die-with-parent",
		"--setenv", "TMPDIR", "/tmp",
	)
	if o.Network {
		a = append(a, "--share-net")
	}
	if s.helper != "" {
		a = append(a, "--ro-bind", s.helper, helperAt)
	}
	return a
}

// helperArgs is the Landlock helper's command line for o, up to and including "--".
func (s *Sandbox) helperArgs(o Options) []string {
	a := []string{helperAt, "--rw", o.Dir, "--rw", "/tmp", "--rw", "/dev"}
	if s.home != "" {
		a = append(a, "--rw", s.home)
	}
	if !o.Network {
		a = append(a, "--no-net")
	}
	return append(a, "--")
}

// Confine rewrites cmd, not yet started, to run inside the sandbox: cmd.Path and
// cmd.Args become bwrap's, with the original command after "--". cmd.Dir, Env, the
// standard streams and SysProcAttr are kept (a process group set there contains
// bwrap and so everything inside).
func (s *Sandbox) Confine(cmd *exec.Cmd, o Options) error {
	if cmd.Process != nil {
		return errors.New("confine: command already started")
	}
	if !filepath.IsAbs(o.Dir) {
		return fmt.Errorf("confine: folder %q is not absolute", o.Dir)
	}
	if len(cmd.Args) == 0 {
		return errors.New("confine: no command")
	}
	argv := append([]string{s.bwrap}, s.Args(o)...)
	argv = append(argv, "--")
	if s.helper != "" {
		argv = append(argv, s.helperArgs(o)...)
	}
	argv = append(argv, cmd.Path)
	argv = append(argv, cmd.Args[1:]...)
	cmd.Path, cmd.Args = s.bwrap, argv
	if cmd.Dir == "" {
		cmd.Dir = o.Dir
	}
	return nil
}

// hiddenFolders lists the folders to cover with an empty tmpfs: home, and the app's
// own config and data folders when they live elsewhere. Folders that do not exist
// are skipped (bwrap cannot create a mount point on the read-only root).
func hiddenFolders() (home string, others []string) {
	if h, err := os.UserHomeDir(); err == nil {
		if real, err := filepath.EvalSymlinks(h); err == nil && real != "/" {
			home = real
		}
	}
	for _, env := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		base := os.Getenv(env)
		if base == "" || !filepath.IsAbs(base) {
			continue
		}
		dir, err := filepath.EvalSymlinks(filepath.Join(base, "loopdesk"))
		if err != nil || (home != "" && within(dir, home)) {
			continue
		}
		others = append(others, dir)
	}
	return home, others
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
