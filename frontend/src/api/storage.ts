// The database file: the damaged-database screen and Settings → Backups (desktop.Storage, bound
// in the usual window and, alone, in the window that opens on a database Loopdesk refused).
import * as Storage from '../../wailsjs/go/desktop/Storage';
import type { BackupsInput, BackupsView, Problem, Recovered, StorageStatus } from './wire';

export const storage = {
  /** Whether the window opened on a database it refused, and the message every command shows for it. */
  status: (): Promise<StorageStatus> => Storage.Status(),
  /** Every problem of the database, with the session and row it affects; none when healthy. */
  check: async (): Promise<Problem[]> => (await Storage.Check()) ?? [],
  /** Copies everything readable into a new file beside the database, which is left as it is. */
  recover: (): Promise<Recovered> => Storage.Recover(),
  /** Starts Loopdesk again on another database (path, or the one chosen when path is empty). */
  openAnother: (path: string): Promise<void> => Storage.OpenAnother(path),
  backups: (): Promise<BackupsView> => Storage.Backups(),
  setBackups: (b: BackupsInput): Promise<BackupsView> => Storage.SetBackups(b),
  backupNow: (): Promise<BackupsView> => Storage.BackupNow(),
};
