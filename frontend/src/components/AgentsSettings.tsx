import { useAgentDefinitions } from '../hooks/useAgents';
import { ListTable } from './ListTable';

/**
 * Settings → Agents: the definitions a task call of the open session can name (its folder's,
 * the person's own, the built-in ones); a file that cannot be used says why, with its path.
 */
export function AgentsSettings({ sessionID }: { sessionID: string | null }) {
  const { defs, error } = useAgentDefinitions(sessionID);
  return (
    <>
      <h2>Agents</h2>
      <p className="note">
        From the folder&apos;s .loopdesk/agents and .claude/agents, your config folder&apos;s agents, and the built-in ones (the nearest wins).
      </p>
      {error && <p role="alert" className="bad">{error}</p>}
      <ListTable label="Agent definitions" columns={['Name', 'Tools', 'Model', 'Source']}>
        {(defs ?? []).map((d) => (
          <tr key={`${d.source}/${d.name}`} className={d.error ? 'bad' : undefined}>
            <td>
              <strong>{d.name}</strong>
              <div className="muted">{d.error ? `Not used: ${d.error}` : d.description}</div>
            </td>
            <td>{d.tools ? d.tools.join(', ') : 'all'}</td>
            <td>{d.model || '—'}</td>
            <td className="muted">{d.source}</td>
          </tr>
        ))}
      </ListTable>
    </>
  );
}
