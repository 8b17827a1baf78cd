import { useId } from 'react';
import type { Schedule } from '../api/types';
import { useBackups } from '../hooks/useStorage';

function size(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`;
}

/**
 * Settings → Backups: how often the window backs the database up while it runs (off, daily,
 * hourly) and how many to keep, saved by its own button; Back up now; the backups there are.
 * Each backup is SQLite's online backup, checked before it counts (docs/reliability.md).
 */
export function BackupsSettings() {
  const b = useBackups();
  const id = useId();
  const files = b.view.files ?? [];
  return (
    <section className="backups-settings" aria-label="Backups">
      <h2>Backups</h2>
      <p className="hint">
        While the window is open, a checked copy of the database goes to <code>{b.view.dir || 'the backups folder'}</code>. Restore one with{' '}
        <code>loopdesk db restore PATH</code> with the window closed.
      </p>
      <label htmlFor={`${id}-schedule`}>Back up</label>
      <select id={`${id}-schedule`} value={b.draft.schedule} onChange={(e) => b.set({ schedule: e.target.value as Schedule })}>
        <option value="off">Off</option>
        <option value="daily">Daily</option>
        <option value="hourly">Hourly</option>
      </select>
      <label htmlFor={`${id}-keep`}>Backups to keep</label>
      <input id={`${id}-keep`} type="number" min={1} max={100} value={b.draft.keep} onChange={(e) => b.set({ keep: Number(e.target.value) })} />
      {b.error && (
        <p role="alert" className="bad">
          {b.error}
        </p>
      )}
      {b.view.last_error && (
        <p role="alert" className="bad">
          The last backup failed: {b.view.last_error}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={b.busy} onClick={() => void b.save()}>
          Save backups
        </button>
        <button type="button" disabled={b.busy} onClick={() => void b.backupNow()}>
          Back up now
        </button>
        {b.done && <span className="ok">{b.done}</span>}
      </div>
      <p role="status" className="muted">
        {files.length === 0 ? 'No backup yet.' : `${files.length} backup(s), the newest ${new Date(files[0].time).toLocaleString()}.`}
      </p>
      {files.length > 0 && (
        <ul aria-label="Backups kept" className="backups-list">
          {files.map((f) => (
            <li key={f.name}>
              {f.name} <span className="muted">{size(f.size)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
