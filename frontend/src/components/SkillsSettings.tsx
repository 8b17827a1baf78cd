import type { SkillView } from '../api/types';
import { useSkills } from '../hooks/useSkills';
import { ListTable } from './ListTable';

const TRUST_TEXT: Record<SkillView['trust'], string> = {
  personal: 'Yours: its allowed tools apply',
  trusted: 'Trusted: its allowed tools apply',
  untrusted: 'Not trusted: its allowed tools pre-approve nothing',
  changed: 'Edited since you trusted it: its allowed tools pre-approve nothing',
};

/**
 * Settings → Skills: every skill of the open session's folder and the person's own. A project
 * skill (written by the repository) loads, but its allowed-tools pre-approve nothing until the
 * person trusts that exact SKILL.md; an edit makes it untrusted again.
 */
export function SkillsSettings({ sessionID }: { sessionID: string | null }) {
  const { skills, error, busy, trust, untrust } = useSkills(sessionID);
  return (
    <>
      <h2>Skills</h2>
      <p className="note">
        From the folder&apos;s .loopdesk/skills, .claude/skills and .agents/skills, and your config folder&apos;s skills. A folder&apos;s skill
        was written by the repository: its <code>allowed-tools</code> approve nothing until you trust the file, and never more than the approval
        mode allows.
      </p>
      {error && <p role="alert" className="bad">{error}</p>}
      {skills.length === 0 ? (
        <p className="muted">No skills.</p>
      ) : (
        <ListTable label="Skills" className="skills-table" columns={['Name', 'Allowed tools', 'Trust', 'Source']}>
          {skills.map((s) => (
            <tr key={s.path} className={s.error ? 'bad' : undefined}>
              <td>
                <strong>{s.name || '(no name)'}</strong>
                <div className="muted">{s.error ? `Not used: ${s.error}` : s.description}</div>
              </td>
              <td>{s.allowed_tools && s.allowed_tools.length > 0 ? <code>{s.allowed_tools.join(', ')}</code> : '—'}</td>
              <td>
                <div>{TRUST_TEXT[s.trust]}</div>
                {(s.trust === 'untrusted' || s.trust === 'changed') && !s.error && (
                  <button
                    type="button"
                    disabled={busy !== ''}
                    aria-label={`Trust skill ${s.name}`}
                    title={`sha256 ${s.sha256}`}
                    onClick={() => void trust(s)}
                  >
                    Trust
                  </button>
                )}
                {s.trust === 'trusted' && (
                  <button type="button" disabled={busy !== ''} aria-label={`Stop trusting skill ${s.name}`} onClick={() => void untrust(s)}>
                    Untrust
                  </button>
                )}
              </td>
              <td className="muted path">{s.path}</td>
            </tr>
          ))}
        </ListTable>
      )}
    </>
  );
}
