// Package checkpoint records what every file-changing tool call does to a
// session's folder — file tools, shell commands and MCP tools alike — and
// restores any file, or the whole folder, to how it was before any row.
//
// # Mechanism
//
// Content-addressed blobs in the session database (table cp_blobs: sha256
// of the raw bytes, DEFLATE-compressed, stored once however many paths and
// sessions refer to them), a per-folder stat cache (cp_files: what the app
// last knew of each tracked path, with size, mtime, ctime, inode and mode),
// and per call a capture (cp_captures) with its changes (cp_changes: state
// before and after of each changed path). docs/checkpoints.md gives the
// measurements behind choosing this over a shadow git repository.
//
// Scope: the folder's files, folders and symlinks, except what the watcher
// ignores (.git, node_modules, .gitignore'd paths; tools.Ignore). Symlinks
// are recorded as links and never followed. Files over MaxContent are
// recorded by size and hash only.
//
// Cost: the folder's one watcher (tools.Watches, shared with the window's
// file tree) reports which paths changed; a capture stats and reads only
// those (Watcher.Sync: a barrier file in a private folder
// outside the workspace makes sure every event up to that moment has been
// seen). Content of the "before" state is already in the blob store from the
// previous capture, so Before reads nothing the call will change. The
// first capture of a folder in a process walks it (stat only); the first
// capture of a folder ever also stores every tracked file's content.
//
// # Contract
//
//   - The "before" state is committed (synchronous=FULL) when Before
//     returns: a kill during the call leaves a restorable checkpoint.
//   - Each change is linked to one row: the call's result, the
//     "interrupted" result repair-on-open adds after a kill, or a restore row.
//   - A restore never overwrites a file changed since the session last
//     recorded it unless the caller names it (ConflictError otherwise), and
//     never deletes a file the session did not record.
//   - Every file write goes through an os.Root on the folder: no path, even
//     with folders swapped for symlinks, leads outside it.
//   - A fork's rows copied from its parent have the parent's records: Changes,
//     CallChanges, Restore and MakeForkFolder follow the fork's line (its own
//     captures, then each parent's up to the fork point); a restore in the
//     fork is the fork's row, with the same conflict check, in whichever
//     folder the fork works; a fork with files of a fork gets the folder as
//     that line had it at the chosen row.
//   - What changed between captures that no call made is recorded as outside
//     edits (Change.By "outside"); restores and fork copies never undo them.
//   - A change's hunks (Hunks) are computed from its stored contents, the same
//     way every time, so (seq, path, hunk) names one for good; review state
//     lives in cp_reviews. A hunk revert never overwrites lines changed since
//     (*HunkConflictError) and is recorded as a note row the model reads.
//
// # Driver duties, in order
//
//  1. After store.Open: rec := checkpoint.New(db, checkpoint.Options{});
//     rec.Recover(ctx) links captures a killed process left pending to the
//     interrupted result rows repair added. Close rec at shutdown. (stack.New
//     does both for every front end, with Options.Watches the stack's.)
//  2. Before each tool call that may change files (write_file, edit_file,
//     run_shell_command, an MCP tool not trusted as read-only), after its
//     approval and before it starts: cap, err := rec.Before(ctx, sessionID,
//     runID, callID, workspaceRoot). On error, do not run the call without
//     saying so (the call is not undoable).
//  3. Run the tool, append its result row, then cap.After(ctx, row.Seq)
//     and publish the returned changes with the row (rec.Content of a
//     change's Before and After gives the two sides of its diff). If the call never
//     started, cap.Abort(). Exactly one of the two, always: other captures
//     of the folder wait until then.
//  4. Restore: rec.Restore(ctx, sessionID, RestoreOptions{ToSeq, Path,
//     DryRun: true}) for the preview (it lists conflicts and other
//     sessions' changes); then again without DryRun, with Override listing
//     the conflicting files the person chose to overwrite. The restore
//     appends its own row (store.KindRestore); do not run it while the
//     session has a tool call in flight (ErrBusy).
//  5. Fork with files: store.Fork, then rec.MakeForkFolder(ctx, parentID,
//     seq, fork.ID, ForksDir(dbPath)) (a git worktree on loopdesk/<fork id>,
//     or a full copy), then store.SetWorkspace(fork.ID, folder.Folder).
//     Deleting a fork: RemoveForkFolder; at start, Orphans lists folders whose
//     session is gone. ApplyFork brings a fork's changes into its parent's
//     folder as hunks to review there.
//  6. Review: rec.Hunks / Unreviewed, rec.Keep, rec.RevertHunk (refuse while
//     a tool call is in flight, as for a restore).
//  7. Export/import: checkpoint.Export(ctx, db, id, w, contents) and
//     checkpoint.Import(ctx, db, r) in place of the store's, reached by the
//     front ends through stack.ExportSession / stack.ImportSession. Deleting a
//     session (store.DeleteSession) frees its blobs by itself (triggers).
package checkpoint
