import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { McpConfig, McpName, McpServerConfig, McpStatus } from '../api/types';
import { errorMessage } from '../api/types';

type Servers = Record<string, McpServerConfig>;

/**
 * Settings → MCP servers: the configuration as saved and as being edited (nothing is written
 * until save()), every server's live status (mcp:status), the tool names Go assigned.
 */
export function useMcpSettings() {
  const [path, setPath] = useState('');
  const [fileError, setFileError] = useState('');
  const [draft, setDraft] = useState<Servers>({});
  const [dirty, setDirty] = useState(false);
  const [statuses, setStatuses] = useState<Record<string, McpStatus>>({});
  const [names, setNames] = useState<McpName[]>([]);
  // What each server's tool schemas add to every request, in tokens (estimated).
  const [schemaTokens, setSchemaTokens] = useState<Record<string, number>>({});
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);

  const load = useCallback(async () => {
    try {
      const v = await api.mcpServers();
      setPath(v.path);
      setFileError(v.error);
      setDraft(v.config?.mcpServers ?? {});
      setDirty(false);
      setStatuses(Object.fromEntries((v.servers ?? []).map((s) => [s.name, s])));
      setNames(v.names ?? []);
      setSchemaTokens(v.schema_tokens ?? {});
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);

  useEffect(() => {
    void load();
    return api.onMCPStatus((st) => {
      setStatuses((all) => ({ ...all, [st.name]: st }));
      // Names (and renames after a collision) follow the tools a server offers now.
      api.mcpServers().then(
        (v) => {
          setNames(v.names ?? []);
          setSchemaTokens(v.schema_tokens ?? {});
        },
        () => {},
      );
    });
  }, [load]);

  const edit = (next: Servers) => {
    setDraft(next);
    setDirty(true);
    setSaved(false);
  };
  const put = (name: string, cfg: McpServerConfig) => edit({ ...draft, [name]: cfg });
  const remove = (name: string) => {
    const { [name]: _gone, ...rest } = draft;
    edit(rest);
  };

  const save = async () => {
    setError('');
    try {
      const v = await api.saveMCPConfig({ mcpServers: draft } as McpConfig);
      setFileError(v.error);
      setDraft(v.config?.mcpServers ?? {});
      setStatuses(Object.fromEntries((v.servers ?? []).map((s) => [s.name, s])));
      setNames(v.names ?? []);
      setDirty(false);
      setSaved(true);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const importClaude = async () => {
    setError('');
    try {
      const c = await api.importClaudeDesktop();
      // Go merged Claude Desktop's servers into the saved file; keep this page's unsaved edits.
      edit({ ...(c.mcpServers ?? {}), ...draft });
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const restart = async (name: string) => {
    setError('');
    try {
      await api.restartMCPServer(name);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return { path, fileError, draft, dirty, statuses, names, schemaTokens, error, saved, put, remove, save, importClaude, restart, reload: load };
}

/** A server's stderr as Go kept it, shown on request (Log) until closed. */
export function useMcpLog() {
  const [log, setLog] = useState<{ name: string; text: string } | null>(null);
  const [error, setError] = useState('');
  const show = async (name: string) => {
    setError('');
    try {
      setLog({ name, text: await api.mcpServerLog(name) });
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return { log, error, show, close: () => setLog(null) };
}
