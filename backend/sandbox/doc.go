// Package sandbox confines the shell commands the agent runs, and keeps the app's
// own secrets out of reach of every process it starts.
//
// The contract:
//
//   - Detect finds bwrap (bubblewrap) on PATH and proves it can build the sandbox
//     by running `true` inside it. When it cannot, it returns an *UnavailableError
//     (errors.Is ErrUnavailable) whose message says plainly what is missing and how
//     to fix it. Callers decide once, at start-up, and keep the *Sandbox.
//   - Sandbox.Confine rewrites an *exec.Cmd so it runs inside a sandbox where
//     Options.Dir is the only writable folder besides a private, empty /tmp; the rest
//     of the file system is read-only (/var/tmp included); the user's home and the
//     app's own config and data folders are replaced by empty throwaway ones (the
//     folder itself stays visible when it lies inside them); /run is empty (no
//     D-Bus, Docker or other sockets); processes get a new PID, IPC, UTS, cgroup and
//     user namespace with no capabilities, and no network unless Options.Network.
//     Everything in the sandbox dies with the command's first process (--die-with-parent
//     plus the PID namespace), so killing the command's process group still kills
//     every process it started, even one that called setsid.
//   - When the kernel has Landlock and the helper cmd/loopdesk-sandbox-exec is
//     installed beside the app or on PATH, Detect adds a second layer: the helper,
//     run by bwrap inside the sandbox, restricts itself (write only below the folder,
//     /tmp, the throwaway home and /dev; no TCP without network; no abstract Unix
//     sockets or signals outside) and then executes the command. Without it, bwrap
//     alone enforces the contract; Sandbox.Landlock says which.
//   - Sandbox.Explain turns a blocked action in a command's output into one line the
//     model can act on (what the sandbox blocked, and how to ask for it).
//   - Mode is the user's choice: on (refuse to run a command unconfined), off, auto
//     (confine when a sandbox can be made). The caller applies it; this package only
//     parses it.
//   - HideSecrets, called first thing in main, takes named secrets (the API key) out
//     of the process's environment: out of Go's copy, and out of the environment
//     block the kernel shows in /proc/<pid>/environ, and makes the process
//     non-dumpable so other processes of the user cannot read its memory or /proc
//     files. No child, sandboxed or not, can then read the key from its parent.
//
// Nothing here keeps state after Detect: a *Sandbox is immutable and safe for
// concurrent use. Linux only.
package sandbox
