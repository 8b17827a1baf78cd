import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { McpStatus } from '../api/types';

const settling = (s: McpStatus) => s.status === 'starting' || s.status === 'restarting';

/**
 * The MCP servers still starting, by name: a run started now waits for them (Go settles them
 * before the run fixes its tools), and the status line says so rather than "Waiting for the
 * model…".
 */
export function useMcpStarting(): string[] {
  const [all, setAll] = useState<Record<string, McpStatus>>({});
  useEffect(() => {
    let live = true;
    api.mcpServers().then(
      (v) => live && setAll((cur) => ({ ...Object.fromEntries((v.servers ?? []).map((s) => [s.name, s])), ...cur })),
      () => {},
    );
    const off = api.onMCPStatus((st) => setAll((cur) => ({ ...cur, [st.name]: st })));
    return () => {
      live = false;
      off();
    };
  }, []);
  return Object.values(all)
    .filter(settling)
    .map((s) => s.name)
    .sort();
}
