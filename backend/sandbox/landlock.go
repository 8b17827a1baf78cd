package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is the second layer: applied inside bwrap, after bwrap has built the
// mounts (a Landlock-restricted process may not change the mount topology, so it
// cannot come first), by the small helper cmd/loopdesk-sandbox-exec right before it
// executes the command. The kernel then enforces, whatever the mounts say: read and
// execute anywhere, write only below the writable folders; no TCP bind or connect
// when there is no network (ABI 4+); no abstract Unix sockets or signals to
// processes outside the sandbox (ABI 6+).
//
// The raw system calls are used rather than github.com/landlock-lsm/go-landlock:
// that library applies rules to all threads through libcap's psx, which with cgo
// wraps pthread_create for the whole binary; the helper needs none of that, since
// it restricts one locked thread and then replaces itself with the command.

// Landlock access rights by ABI version (linux/landlock.h).
const (
	fsReadV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	fsAllV1  = fsReadV1 | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
)

// LandlockABI is the kernel's Landlock ABI version, 0 when it has none (not built
// in, or not in the lsm= list).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// fsRights is every file-system right the kernel of abi knows.
func fsRights(abi int) uint64 {
	r := uint64(fsAllV1)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// RestrictThread applies the Landlock policy to the calling OS thread, which it
// locks; whatever that thread executes next inherits it. Reading is allowed
// everywhere, writing only below rw; with noNet (ABI 4+) no TCP at all. It fails
// when the kernel has no Landlock, so a caller that asked for the layer never runs
// without it.
func RestrictThread(rw []string, noNet bool) error {
	abi := LandlockABI()
	if abi < 1 {
		return fmt.Errorf("landlock: not available in this kernel")
	}
	runtime.LockOSThread() // never unlocked: the thread is about to exec
	all := fsRights(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: all}
	if noNet && abi >= 4 {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		if abi >= 10 {
			attr.Handled_access_net |= unix.LANDLOCK_ACCESS_NET_BIND_UDP | unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP
		}
	}
	// The struct grew with the ABI; pass only the part this kernel knows.
	size := unsafe.Offsetof(attr.Scoped)
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Offsetof(attr.Quiet_access_fs)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: create ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if err := addPathRule(int(fd), "/", fsReadV1); err != nil {
		return err
	}
	for _, p := range rw {
		if err := addPathRule(int(fd), p, all); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict self: %w", errno)
	}
	return nil
}

func addPathRule(rulesetFD int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock: open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// Rights that only make sense on folders are refused on files.
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
			unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: add rule for %s: %w", path, errno)
	}
	return nil
}
