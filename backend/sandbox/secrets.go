package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HideSecrets takes the named variables out of the process's environment and
// returns their values (only those that were set). It must run first thing in main,
// before any goroutine reads the environment or any process is started.
//
// os.Unsetenv alone is not enough: the kernel shows the environment block the
// process was started with (/proc/<pid>/environ, readable by its children), and
// that block stays as it was. So the values are also overwritten with NUL bytes in
// place, through /proc/self/mem, between env_start and env_end (/proc/self/stat
// fields 50 and 51). Go keeps its own copy of the environment, so nothing in the
// program is affected. Finally the process is made non-dumpable, so other
// processes of the same user (including its own children) can no longer read its
// memory or its /proc files, where the values still live in Go's heap; root still can.
//
// The values are returned even when a step fails; the error says which step.
func HideSecrets(names ...string) (map[string]string, error) {
	vals := make(map[string]string, len(names))
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			vals[n] = strings.Clone(v)
			if err := os.Unsetenv(n); err != nil {
				return vals, fmt.Errorf("hide secrets: unset %s: %w", n, err)
			}
		}
	}
	if err := scrubEnvironBlock(names); err != nil {
		return vals, fmt.Errorf("hide secrets: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return vals, fmt.Errorf("hide secrets: make process non-dumpable: %w", err)
	}
	return vals, nil
}

// scrubEnvironBlock overwrites the value of every NAME=value entry named in names
// with NUL bytes in the environment block the process was started with.
func scrubEnvironBlock(names []string) error {
	start, end, err := environBounds()
	if err != nil {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("open /proc/self/mem: %w", err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		return fmt.Errorf("read environment block: %w", err)
	}
	off := 0
	for _, entry := range bytes.Split(block, []byte{0}) {
		name, _, found := bytes.Cut(entry, []byte("="))
		if found && wanted(string(name), names) {
			valueAt := off + len(name) + 1
			zeros := make([]byte, len(entry)-len(name)-1)
			if _, err := mem.WriteAt(zeros, int64(start)+int64(valueAt)); err != nil {
				return fmt.Errorf("overwrite %s in environment block: %w", name, err)
			}
		}
		off += len(entry) + 1
	}
	return nil
}

func wanted(name string, names []string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// environBounds reads env_start and env_end, fields 50 and 51 of /proc/self/stat.
// Field 2 (the command name) may hold spaces and parentheses, so fields are counted
// after its closing parenthesis, where field 3 begins.
func environBounds() (uint64, uint64, error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("read /proc/self/stat: %w", err)
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("parse /proc/self/stat: no command name")
	}
	fields := strings.Fields(string(stat[i+1:]))
	const envStart, envEnd = 50 - 3, 51 - 3
	if len(fields) <= envEnd {
		return 0, 0, fmt.Errorf("parse /proc/self/stat: %d fields, kernel too old for env_start/env_end", len(fields)+2)
	}
	start, err1 := strconv.ParseUint(fields[envStart], 10, 64)
	end, err2 := strconv.ParseUint(fields[envEnd], 10, 64)
	if err1 != nil || err2 != nil || end < start || start == 0 {
		return 0, 0, fmt.Errorf("parse /proc/self/stat: bad env_start/env_end %q %q", fields[envStart], fields[envEnd])
	}
	return start, end, nil
}
