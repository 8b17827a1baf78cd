import { useId, useState } from 'react';
import type { Problem, Recovered, StorageStatus } from '../api/types';
import { useDamaged } from '../hooks/useStorage';

/** Where a problem is, in words. */
function place(p: Problem): string {
  if (p.session_id && p.seq > 0) return `session ${p.session_id}, row ${p.seq}`;
  if (p.session_id) return `session ${p.session_id}`;
  return 'the file';
}

function Problems({ problems }: { problems: Problem[] }) {
  if (problems.length === 0) return <p role="status">Check found no problem.</p>;
  return (
    <>
      <p role="status">Check found {problems.length} problem(s):</p>
      <table className="damaged-problems" aria-label="Problems">
        <thead>
          <tr>
            <th scope="col">Problem</th>
            <th scope="col">Where</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {problems.map((p, i) => (
            <tr key={i}>
              <td>{p.problem}</td>
              <td>{place(p)}</td>
              <td>{p.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function RecoveredReport({ r, onOpen }: { r: Recovered; onOpen: () => void }) {
  const lost = r.report.not_saved ?? [];
  return (
    <div role="status" className="damaged-recovered">
      <p>
        Recovered {r.report.sessions} session(s) ({r.report.whole} whole) and {r.report.rows} row(s) into <code>{r.path}</code>.{' '}
        {lost.length === 0 ? 'Nothing was lost.' : `Not saved: ${lost.length}.`}
      </p>
      {lost.length > 0 && (
        <ul aria-label="Not saved">
          {lost.map((p, i) => (
            <li key={i}>{p.detail}</li>
          ))}
        </ul>
      )}
      <button type="button" onClick={onOpen}>
        Open the recovered copy
      </button>
    </div>
  );
}

/**
 * The window on a database Loopdesk refused to open (damaged, or from a newer Loopdesk): what is
 * wrong, and Check, Recover and Open another. Nothing here writes to the file.
 */
export function DamagedScreen({ status }: { status: StorageStatus }) {
  const d = useDamaged();
  const [other, setOther] = useState('');
  const id = useId();
  return (
    <main className="damaged-screen" aria-labelledby={`${id}-title`} style={{ padding: '24px 32px', maxWidth: 1000 }}>
      <h1 id={`${id}-title`}>{status.too_new ? 'This database is from a newer Loopdesk' : 'This database is damaged'}</h1>
      <p role="alert">{status.message}</p>
      <p className="hint">
        Loopdesk has not written to <code>{status.path}</code> and will not. Check lists what is affected; Recover copies everything readable into a new
        file beside it; Open another starts Loopdesk on another database (a backup, or a recovered copy).
      </p>
      <div className="row">
        <button type="button" disabled={d.busy !== ''} onClick={() => void d.check()}>
          Check
        </button>
        <button type="button" disabled={d.busy !== ''} onClick={() => void d.recover()}>
          Recover
        </button>
        <label htmlFor={`${id}-other`}>Another database</label>
        <input id={`${id}-other`} value={other} placeholder="/path/to/loopdesk.db (empty: choose)" onChange={(e) => setOther(e.target.value)} />
        <button type="button" disabled={d.busy !== ''} onClick={() => void d.openAnother(other)}>
          Open another
        </button>
      </div>
      {d.busy && <p className="muted">{d.busy === 'check' ? 'Checking…' : d.busy === 'recover' ? 'Recovering…' : 'Opening…'}</p>}
      {d.error && (
        <p role="alert" className="bad">
          {d.error}
        </p>
      )}
      {d.problems && <Problems problems={d.problems} />}
      {d.recovered && <RecoveredReport r={d.recovered} onOpen={() => void d.openAnother(d.recovered!.path)} />}
    </main>
  );
}
