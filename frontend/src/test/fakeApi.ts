// An in-memory stand-in for src/api/backend.ts, so component tests run
// without Go. Tests drive it: seed sessions, rows, files; push loop and
// workspace events; inspect the calls made.
import { vi } from 'vitest';
import type { Api, WireEvent } from '../api/backend';
import { findMatches, rowTexts } from '../state/find';
import type { Meter } from '../api/types';
import type { MemoryProposal, MemoryView } from '../api/types';
import type {
  ChildView,
  Branch,
  AbandonedFiles,
  ForkedRun,
  ForkFolder,
  ImageInput,
  SessionBudgets,
  Hunk,
  Orphan,
  Change,
  FileDiff,
  McpConfig,
  McpName,
  McpStatus,
  McpView,
  RestorePlan,
  Row,
  InstructionFile,
  SessionMode,
  ConnectionResult,
  DecisionInput,
  FileEntry,
  FilePreview,
  Hit,
  HooksView,
  TelemetryInput,
  TelemetryView,
  SkillView,
  EffectiveView,
  PaletteEntry,
  ApprovalRequestedPayload,
  ChunkKind,
  RowPayloads,
  AgentDefinition,
  PinnedPlan,
  Plan,
  Rule,
  RuleInput,
  RuleView,
  Run,
  Session,
  SessionSummary,
  SandboxInput,
  SandboxStatus,
  SandboxView,
  Provider,
  ProvidersView,
  Settings,
  SettingsInput,
  Touched,
  UIState,
  OpenFolder,
  FocusCard,
  Activity,
  InboxAnswer,
  InboxView,
  InboxRulePreview,
  WorkspaceChanged,
  WorkspaceWarning,
  CloseRequest,
  Report,
  Limits,
  HarnessTokens,
  Suggestion,
} from '../api/types';

type Handler = (ev: WireEvent) => void;

const NO_BUDGETS: SessionBudgets = { max_turns: null, max_tool_calls: null, max_tokens: null, max_cost_usd: null, timeout_seconds: null };
const NO_FILES: AbandonedFiles = { changed: [], conflicts: [], offer: false, restore: false };

export const defaultSettings = (): Settings => ({
  provider: 'default',
  base_url: 'http://127.0.0.1:9/v1',
  model: 'fake-model',
  has_key: false,
  key_source: '',
  configured: true,
  approval_mode: 'ask',
  budgets: { max_turns: 20, max_tool_calls: 50, max_tokens: 0, max_cost_usd: 0, timeout_seconds: 600 },
  prices: [{ model: 'gpt-4.1-mini', input_per_mtok: 0.4, output_per_mtok: 1.6, cache_read_per_mtok: 0, cache_write_per_mtok: 0 }],
  context_windows: [{ model: 'fake-model', tokens: 32000 }],
  vision: [],
  theme: 'system',
  notifications: true,
  problem: '',
});

/** An approval report with nothing in it. */
export function emptyReport(): Report {
  return {
    asked: 0,
    allowed_by_rule: {},
    allowed_by_mode: 0,
    allowed_by_hook: 0,
    allowed_by_skill: 0,
    sandboxed: 0,
    denied: { person: 0, rule: 0, mode: 0, hook: 0 },
    answer_ms: { p50: 0, p90: 0 },
    suggestions: [],
  };
}

export function makeFakeApi() {
  const handlers = new Set<Handler>();
  const wsHandlers = new Set<(ev: WorkspaceChanged) => void>();
  const warnHandlers = new Set<(ev: WorkspaceWarning) => void>();
  const mcpHandlers = new Set<(st: McpStatus) => void>();
  const folderHandlers = new Set<(ev: OpenFolder) => void>();
  const focusHandlers = new Set<(ev: FocusCard) => void>();
  const inboxHandlers = new Set<(v: InboxView) => void>();
  const activityHandlers = new Set<(a: Activity) => void>();
  const closeHandlers = new Set<(r: CloseRequest) => void>();
  const state = {
    /** What approvalReport answers (every session and each alike) and providerLimits. */
    approvalReport: emptyReport(),
    limits: null as Limits | null,
    /** What harnessTokens answers: the last run's, as stored with it. */
    harness: null as HarnessTokens | null,
    hunks: new Map<string, Hunk[]>(),
    revertError: null as unknown,
    forkFolders: new Map<string, ForkFolder>(),
    orphans: [] as Orphan[],
    settings: defaultSettings(),
    sessions: [] as SessionSummary[],
    rows: new Map<string, Row[]>(),
    runs: new Map<string, Run[]>(),
    branches: new Map<string, Branch[]>(),
    abandoned: new Map<string, AbandonedFiles>(),
    budgets: new Map<string, SessionBudgets>(),
    sentImages: [] as ImageInput[],
    seesImages: true,
    clipboard: '',
    plans: new Map<string, PinnedPlan>(),
    agents: [] as AgentDefinition[],
    meters: new Map<string, Meter[]>(),
    pending: new Map<string, ApprovalRequestedPayload[]>(),
    running: new Map<string, string>(),
    rules: [] as Rule[],
    modes: new Map<string, SessionMode>(),
    instructions: [] as InstructionFile[],
    importPath: '',
    hits: [] as Hit[],
    files: new Map<string, FileEntry[]>(),
    contents: new Map<string, string>(),
    touched: new Map<string, Touched[]>(),
    // Go links a change to the result row that recorded it (`at`), the entry to the call's row
    // (`seq`): a read after the call's row still finds a change recorded later.
    changedAt: new Map<Touched, number>(),
    folder: '/home/me/project',
    sandboxStatus: { available: true, name: 'bubblewrap 0.8.0 + Landlock ABI 7', notice: '' } as SandboxStatus,
    sandbox: {
      workspace: { mode: 'auto', network: false },
      session: null,
      effective: { mode: 'auto', network: false },
      source: 'default',
      description: 'auto: bubblewrap 0.8.0 + Landlock ABI 7, no network',
      notice: '',
    } as SandboxView,
    launchFolder: '',
    ui: { panel_width: 0, last_session: '', zoom: 1 } as UIState,
    focused: [] as boolean[],
    exportPath: '/home/me/session.jsonl',
    /** The whole content of a tool result the page got cut (session:seq), for toolOutput. */
    fullOutputs: new Map<string, string>(),
    connection: { ok: true, models: ['fake-model', 'other-model'], error: '' } as ConnectionResult,
    sendError: null as null | { code: string; message: string },
    suggestion: null as null | RuleInput,
    mcpPath: '/home/me/.config/loopdesk/mcp.json',
    inbox: { approvals: [], ended: [] } as InboxView,
    answers: [] as InboxAnswer[],
    rulePreview: null as null | InboxRulePreview,
    activity: [] as Activity[],
    title: '',
    mcpConfig: { mcpServers: {} } as McpConfig,
    mcpError: '',
    mcpStatuses: [] as McpStatus[],
    mcpNames: [] as McpName[],
    mcpLogs: new Map<string, string>(),
    hooks: { workspace: '', hooks: [], sha256: '', trusted: false, changed: false, diff: '', errors: [], recent: [] } as HooksView,
    telemetry: { on: false, endpoint: '', protocol: '', headers_set: false, contents: false, from_env: false, disabled: false, active: false,
      exported: 0, dropped: 0, last_error: '' } as TelemetryView,
    skills: [] as SkillView[],
    memories: [] as MemoryView[],
    memoryProposals: [] as MemoryProposal[],
    effective: { rows: [], error: '' } as EffectiveView,
    palette: [] as PaletteEntry[],
    claudeDesktop: { mcpServers: {} } as McpConfig,
    providers: [] as Provider[],
    providersError: '',
    /** Keys typed in Settings → Providers, by provider (the fake keeps them only to say one is set). */
    providerKeys: new Map<string, string>(),
    changes: new Map<string, Change[]>(),
    diffs: new Map<string, FileDiff>(),
    /** What RestorePreview answers (conflicts, others…); Restore answers it without dry_run. */
    restorePlan: { restored: [], dry_run: true } as RestorePlan,
    restoreError: null as null | { code: string; message: string },
  };
  const mcpView = (): McpView => ({
    path: state.mcpPath,
    config: state.mcpConfig,
    error: state.mcpError,
    servers: [...state.mcpStatuses],
    names: [...state.mcpNames],
    schema_tokens: {},
  });
  const providersView = (): ProvidersView => ({
    path: '/home/me/.config/loopdesk/providers.json',
    providers: state.providers.map((p) => ({ ...p })),
    infos: [
      { name: 'default', kind: 'openai', base_url: state.settings.base_url, models: [state.settings.model], thinking_budget: 0, key: { from: 'none', found: false } },
      ...state.providers.map((p) => ({
        name: p.name,
        kind: p.kind,
        base_url: p.base_url,
        models: p.models,
        thinking_budget: p.thinking_budget ?? 0,
        key: p.api_key_env
          ? { from: 'env' as const, name: p.api_key_env, found: true }
          : p.api_key_file
            ? { from: 'file' as const, name: p.api_key_file, found: state.providerKeys.has(p.name) }
            : { from: 'none' as const, found: false },
      })),
    ],
    error: state.providersError,
  });
  let n = 0;
  const session = (title: string, extra: Partial<SessionSummary> = {}): SessionSummary => {
    n++;
    const now = new Date().toISOString();
    return {
      id: `s${n}`,
      title,
      workspace: '',
      model: 'fake-model',
      provider: 'default',
      parent_id: '',
      fork_seq: 0,
      created_at: now,
      updated_at: now,
      scratch: false,
      running: false,
      ...extra,
    };
  };
  const find = (id: string) => {
    const s = state.sessions.find((x) => x.id === id);
    if (!s) throw { code: 'not_found', message: `session ${id} not found` };
    return s;
  };
  const setHunkState = (id: string, seq: number, path: string, n: number, st: Hunk['state']): Hunk => {
    const list = state.hunks.get(id) ?? [];
    const i = list.findIndex((h) => h.seq === seq && h.path === path && h.hunk === n);
    if (i < 0) throw { code: 'not_found', message: `no hunk ${n} of ${path} at row ${seq}` };
    list[i] = { ...list[i], state: st };
    return list[i];
  };
  const api = {
    presets: vi.fn(async () => [
      { name: 'OpenAI', base_url: 'https://api.openai.com/v1', needs_key: true },
      { name: 'Ollama', base_url: 'http://localhost:11434/v1', needs_key: false },
    ]),
    getSettings: vi.fn(async () => state.settings),
    sandboxStatus: vi.fn(async () => state.sandboxStatus),
    sessionSandbox: vi.fn(async (_id: string) => state.sandbox),
    saveSandbox: vi.fn(async (in_: SandboxInput) => {
      const set = { mode: in_.mode, network: in_.network };
      state.sandbox =
        in_.scope === 'session'
          ? { ...state.sandbox, session: in_.clear ? null : set, effective: in_.clear ? state.sandbox.workspace : set, source: in_.clear ? 'workspace' : 'session' }
          : { ...state.sandbox, workspace: set, effective: state.sandbox.session ?? set, source: state.sandbox.session ? 'session' : 'workspace' };
      state.sandbox.description = `${state.sandbox.effective.mode}: bubblewrap, ${state.sandbox.effective.network ? 'network allowed' : 'no network'}`;
      return state.sandbox;
    }),
    saveSettings: vi.fn(async (s: SettingsInput) => {
      const { api_key, clear_key, ...rest } = s;
      state.settings = {
        ...state.settings,
        ...rest,
        has_key: clear_key ? false : api_key !== '' || state.settings.has_key,
        key_source: clear_key ? '' : api_key !== '' ? 'file' : state.settings.key_source,
        configured: true,
      };
      return state.settings;
    }),
    testConnection: vi.fn(async () => state.connection),
    // As Go lists them (desktop.RuleView): in words, with where each applies.
    listRules: vi.fn(async (): Promise<RuleView[]> =>
      state.rules.map((r) => ({
        id: r.id,
        tool: r.tool,
        pattern: r.pattern,
        effect: r.effect,
        scope: r.scope,
        scope_id: r.scope_id,
        text: `${r.effect} ${r.tool} ${r.pattern} in this ${r.scope === 'workspace' ? 'folder' : 'session'}`,
        where: r.scope === 'workspace' ? `folder ${r.scope_id}` : `session “${state.sessions.find((s) => s.id === r.scope_id)?.title ?? 'New session'}”`,
        copies: [r.id],
      })),
    ),
    addRule: vi.fn(async (r: RuleInput) => {
      const rule: Rule = {
        id: `r${state.rules.length + 1}`,
        tool: r.tool,
        pattern: r.pattern,
        effect: r.effect,
        scope: r.scope,
        scope_id: r.session_id,
        created_at: new Date().toISOString(),
      };
      state.rules.push(rule);
      return rule;
    }),
    updateRule: vi.fn(async (id: string, r: RuleInput) => {
      const old = state.rules.find((x) => x.id === id);
      if (!old) throw { code: 'not_found', message: `rule ${id}` };
      const rule: Rule = { ...old, id: `${id}e`, tool: r.tool, pattern: r.pattern, effect: r.effect };
      state.rules = state.rules.map((x) => (x.id === id ? rule : x));
      return rule;
    }),
    deleteRule: vi.fn(async (id: string) => {
      state.rules = state.rules.filter((r) => r.id !== id);
    }),
    mcpServers: vi.fn(async () => mcpView()),
    listProviders: vi.fn(async () => providersView()),
    saveProviders: vi.fn(async (ps: Provider[]) => {
      state.providers = ps.map((p) => ({ ...p }));
      return providersView();
    }),
    setProviderKey: vi.fn(async (name: string, key: string) => {
      const p = state.providers.find((x) => x.name === name);
      if (!p) throw { code: 'invalid', message: `no provider "${name}": save it before its key` };
      if (key.trim()) {
        state.providerKeys.set(name, key.trim());
        p.api_key_file = `/home/me/.config/loopdesk/keys/${name}.key`;
      } else {
        state.providerKeys.delete(name);
        p.api_key_file = '';
      }
      return providersView();
    }),
    testProvider: vi.fn(async (_p: Provider) => state.connection),
    saveMCPConfig: vi.fn(async (c: McpConfig) => {
      state.mcpConfig = JSON.parse(JSON.stringify(c));
      state.mcpError = '';
      return mcpView();
    }),
    importClaudeDesktop: vi.fn(async () => ({ mcpServers: { ...(state.mcpConfig.mcpServers ?? {}), ...(state.claudeDesktop.mcpServers ?? {}) } })),
    restartMCPServer: vi.fn(async (_name: string) => {}),
    mcpServerLog: vi.fn(async (name: string) => {
      const log = state.mcpLogs.get(name);
      if (log === undefined) throw { code: 'invalid', message: `MCP server "${name}": invalid input` };
      return log;
    }),
    hooks: vi.fn(async (_sessionID: string) => ({ ...state.hooks })),
    telemetry: vi.fn(async () => ({ ...state.telemetry })),
    saveTelemetry: vi.fn(async (t: TelemetryInput) => {
      if (t.on && !/^https?:\/\/./.test(t.endpoint)) throw { code: 'invalid', message: `telemetry: endpoint "${t.endpoint}": want a base URL such as http://localhost:4318` };
      const headers_set = t.clear_headers ? false : t.headers !== '' || state.telemetry.headers_set;
      state.telemetry = { ...state.telemetry, on: t.on, endpoint: t.endpoint, protocol: t.protocol, contents: t.contents, headers_set, active: t.on };
      return { ...state.telemetry };
    }),
    importClaudeCodeHooks: vi.fn(async (_sessionID: string) => ({ added: 0, view: { ...state.hooks } })),
    skills: vi.fn(async (_sessionID: string) => state.skills.map((k) => ({ ...k }))),
    effectiveSettings: vi.fn(async () => ({ ...state.effective })),
    trustSkill: vi.fn(async (_sessionID: string, path: string, sha256: string) => {
      const k = state.skills.find((x) => x.path === path);
      if (!k || k.sha256 !== sha256) throw { code: 'invalid', message: 'the file changed since it was shown; review it again' };
      state.skills = state.skills.map((x) => (x.path === path ? { ...x, trust: 'trusted' } : x));
      return state.skills.map((x) => ({ ...x }));
    }),
    untrustSkill: vi.fn(async (_sessionID: string, path: string) => {
      state.skills = state.skills.map((x) => (x.path === path ? { ...x, trust: 'untrusted' } : x));
      return state.skills.map((x) => ({ ...x }));
    }),
    trustHooks: vi.fn(async (_sessionID: string, sha256: string) => {
      if (sha256 !== state.hooks.sha256) throw { code: 'invalid', message: 'the hooks changed since they were shown; review them again' };
      state.hooks = { ...state.hooks, trusted: true, changed: false, diff: '', hooks: (state.hooks.hooks ?? []).map((h) => ({ ...h, trusted: true })) };
      return { ...state.hooks };
    }),

    listSessions: vi.fn(async () => state.sessions.filter((s) => !s.archived).map((s) => ({ ...s }))),
    listArchived: vi.fn(async () => state.sessions.filter((s) => s.archived).map((s) => ({ ...s }))),
    /** Pages of the list in the fake's order; a page's next is where the following one starts. */
    listSessionsPage: vi.fn(async (archived: boolean, after: string, limit: number) => {
      const all = state.sessions.filter((s) => Boolean(s.archived) === archived);
      const from = after ? Number(after) : 0;
      const projects = new Map<string, number>();
      for (const s of all) if (s.project) projects.set(s.project, (projects.get(s.project) ?? 0) + 1);
      return {
        sessions: all.slice(from, from + limit).map((s) => ({ ...s })),
        next: from + limit < all.length ? String(from + limit) : '',
        total: all.length,
        projects: [...projects].map(([project, sessions]) => ({ project, sessions, updated_at_ms: 0 })),
      };
    }),
    archiveSessions: vi.fn(async (ids: string[], archived: boolean) => {
      ids.forEach(find);
      for (const id of ids) find(id).archived = archived;
    }),
    moveToProject: vi.fn(async (ids: string[], project: string) => {
      ids.forEach(find);
      for (const id of ids) find(id).project = project.trim();
    }),
    projects: vi.fn(async () => [...new Set(state.sessions.map((s) => s.project ?? '').filter(Boolean))].sort()),
    deleteSessions: vi.fn(async (ids: string[]) =>
      ids.map((id) => {
        const rows = state.rows.get(find(id).id)?.length ?? 0;
        state.sessions = state.sessions.filter((s) => s.id !== id);
        return { deleted: id, rows, bytes: rows * 100, images: 0 };
      }),
    ),
    exportSessions: vi.fn(async (ids: string[]) => {
      ids.forEach(find);
      return '/home/me/exports';
    }),
    sessionSize: vi.fn(async (id: string) => {
      const rows = state.rows.get(find(id).id)?.length ?? 0;
      return { rows: rows * 100, images: 0, checkpoints: 0, total: rows * 100 };
    }),
    databaseSize: vi.fn(async () => ({ path: '/home/me/.local/share/loopdesk/loopdesk.db', bytes: 3 * 1024 * 1024, free: 0 })),
    compactDatabase: vi.fn(async () => ({ path: '/home/me/.local/share/loopdesk/loopdesk.db', bytes: 2 * 1024 * 1024, free: 0 })),
    toolOutput: vi.fn(async (sessionID: string, seq: number, from: number, to: number) => {
      const row = state.rows.get(sessionID)?.find((r) => r.seq === seq);
      if (!row || row.kind !== 'tool_result') throw { code: 'not_found', message: `row ${seq}: no tool result there` };
      const lines = (state.fullOutputs.get(`${sessionID}:${seq}`) ?? row.payload.content).split(/(?<=\n)/);
      const end = to <= 0 || to > lines.length ? lines.length : to;
      return { text: lines.slice(from, end).join(''), from, to: end, total: lines.length };
    }),
    newSession: vi.fn(async (workspace = '') => {
      const s = session('New session', { workspace });
      state.sessions.unshift(s);
      state.rows.set(s.id, []);
      return s as Session;
    }),
    setSessionModel: vi.fn(async (id: string, provider: string, model: string) => {
      const s = find(id);
      if (!providersView().infos?.some((i) => i.name === provider)) throw { code: 'invalid', message: `unknown provider "${provider}"` };
      s.provider = provider;
      s.model = model;
      return { ...s };
    }),
    renameSession: vi.fn(async (id: string, title: string) => {
      find(id).title = title;
    }),
    deleteSession: vi.fn(async (id: string) => {
      find(id);
      state.sessions = state.sessions.filter((s) => s.id !== id);
    }),
    exportSession: vi.fn(async (id: string) => {
      find(id);
      return state.exportPath;
    }),
    exportMarkdown: vi.fn(async (id: string) => {
      find(id);
      return state.exportPath.replace(/\.jsonl$/, '') + '.md';
    }),
    forkSession: vi.fn(async (id: string, seq: number) => {
      const parent = find(id);
      const s = session(`${parent.title} (fork)`, { parent_id: id, fork_seq: seq, workspace: parent.workspace });
      state.sessions.unshift(s);
      state.rows.set(
        s.id,
        (state.rows.get(id) ?? []).filter((r) => r.seq <= seq).map((r) => ({ ...r, session_id: s.id })),
      );
      return s as Session;
    }),
    forkSessionWithFiles: vi.fn(async (id: string, seq: number) => {
      const s = (await api.forkSession(id, seq)) as SessionSummary;
      s.workspace = `/data/forks/${s.id}`;
      return s as Session;
    }),
    searchSessions: vi.fn(async (_q: string) => [...state.hits]),
    searchText: vi.fn(async (_text: string) => [...state.hits]),
    openSession: vi.fn(async (id: string, tail: number) => ({
      session: find(id) as Session,
      rows: (state.rows.get(id) ?? []).slice(-tail),
      row_count: (state.rows.get(id) ?? []).length,
      first_seq: state.rows.get(id)?.[0]?.seq ?? 0,
      runs: [...(state.runs.get(id) ?? [])],
      pending: [...(state.pending.get(id) ?? [])],
      running_run_id: state.running.get(id) ?? '',
      running: [],
      meters: [...(state.meters.get(id) ?? [])],
      mode: state.modes.get(id) ?? { mode: 'execute' as const, approve: '' as const },
      totals: { session_id: id, runs: 0, turns: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, cost: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
      queued: [],
      sandbox: state.sandbox,
      budgets: { max_turns: null, max_tool_calls: null, max_tokens: null, max_cost_usd: null, timeout_seconds: null },
    })),
    totals: vi.fn(async (id: string) => ({ session_id: id, runs: (state.runs.get(id) ?? []).length, turns: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, cost: 0, cache_read_tokens: 0, cache_write_tokens: 0 })),
    children: vi.fn(async (_id: string): Promise<ChildView[]> => []),
    instructions: vi.fn(async (_id: string) => [...state.instructions]),
    importSession: vi.fn(async () => {
      if (!state.importPath) return { id: '' } as Session;
      const s = session('Imported session');
      state.sessions.unshift(s);
      return s as Session;
    }),
    rowsAfter: vi.fn(async (id: string, after: number) => (state.rows.get(id) ?? []).filter((r) => r.seq > after)),
    rowSeqs: vi.fn(async (id: string, kind: string) => (state.rows.get(id) ?? []).filter((r) => r.kind === kind).map((r) => r.seq)),
    findInSession: vi.fn(async (id: string, text: string, from: number, to: number) =>
      (state.rows.get(id) ?? []).filter((r) => r.seq < from || r.seq > to).flatMap((r) => findMatches(rowTexts(r), text).map(() => r.seq)),
    ),
    rowsBefore: vi.fn(async (id: string, before: number, limit: number) => (state.rows.get(id) ?? []).filter((r) => r.seq < before).slice(-limit)),
    rowsAround: vi.fn(async (id: string, seq: number, limit: number) => {
      const rows = state.rows.get(id) ?? [];
      const at = rows.findIndex((r) => r.seq >= seq);
      const from = Math.max(0, Math.min((at < 0 ? rows.length : at) - Math.floor(limit / 2), rows.length - limit));
      return rows.slice(from, from + limit);
    }),
    runs: vi.fn(async (id: string) => [...(state.runs.get(id) ?? [])]),
    plan: vi.fn(async (id: string) => state.plans.get(id) ?? null),
    agentDefinitions: vi.fn(async (_id: string) => [...state.agents]),
    editPlan: vi.fn(async (id: string, p: Plan) => {
      if (state.running.get(id)) throw { code: 'busy', message: 'stop it or wait for it to finish' };
      const rows = state.rows.get(id) ?? [];
      const pinned: PinnedPlan = { ...p, seq: rows.length + 1, by: 'person' };
      rows.push(chunk(id, rows.length + 1, 'note', { source: 'plan_edit', text: JSON.stringify(p) }));
      state.rows.set(id, rows);
      state.plans.set(id, pinned);
      return pinned;
    }),

    diskRoom: vi.fn(async () => ({ path: '/data/loopdesk.db', free: 50 << 30, low: false, full: false, message: '' })),
    sendMessage: vi.fn(async (id: string, text: string) => {
      if (state.sendError) throw state.sendError;
      const rows = state.rows.get(id) ?? [];
      rows.push(chunk(id, rows.length + 1, 'user', { text }));
      state.rows.set(id, rows);
      return 'run1';
    }),
    cancel: vi.fn(async (_id: string) => {}),
    sendWithImages: vi.fn(async (id: string, text: string, images: ImageInput[]) => {
      const rows = state.rows.get(id) ?? [];
      const refs = images.map((im, i) => ({ hash: `h${i}`, mime: 'image/png', width: 1, height: 1, name: im.name }));
      rows.push(chunk(id, rows.length + 1, 'user', { text, images: refs }));
      state.rows.set(id, rows);
      state.sentImages.push(...images);
      return 'run-img';
    }),
    image: vi.fn(async (_hash: string) => 'data:image/png;base64,iVBORw0KGgo='),
    seesImages: vi.fn(async () => state.seesImages),
    sessionSeesImages: vi.fn(async (_id: string) => state.seesImages),
    // Edit and Regenerate fork as Go does (rows before the edited message; through the
    // regenerated reply's message) and start a run in the fork.
    editAndResend: vi.fn(async (id: string, seq: number, text: string, _restoreFiles: boolean): Promise<ForkedRun> => {
      const s: Session = await api.forkSession(id, seq - 1);
      await api.sendMessage(s.id, text);
      return { session: s, run_id: 'run-edit' };
    }),
    regenerate: vi.fn(async (id: string, seq: number, _restoreFiles: boolean): Promise<ForkedRun> => {
      const rows = state.rows.get(id) ?? [];
      const run = rows.find((r) => r.seq === seq)?.run_id;
      const first = rows.find((r) => r.run_id === run);
      const at = first ? (first.kind === 'user' ? first.seq : first.seq - 1) : seq - 1;
      return { session: await api.forkSession(id, at), run_id: 'run-regen' };
    }),
    // What Go's dry run of the restore would say, by session and seq (none: nothing changed).
    editFiles: vi.fn(async (id: string, seq: number): Promise<AbandonedFiles> => state.abandoned.get(`${id}:${seq}`) ?? NO_FILES),
    regenerateFiles: vi.fn(async (id: string, seq: number): Promise<AbandonedFiles> => state.abandoned.get(`${id}:${seq}`) ?? NO_FILES),
    retry: vi.fn(async (_id: string) => 'run-retry'),
    sessionBudgets: vi.fn(async (id: string): Promise<SessionBudgets> => ({ ...NO_BUDGETS, ...state.budgets.get(id) })),
    setSessionBudgets: vi.fn(async (id: string, b: SessionBudgets) => {
      if (Object.values(b).some((v) => v !== null && v < 0)) throw { code: 'invalid_input', message: 'budgets cannot be negative' };
      state.budgets.set(id, b);
      return b;
    }),
    branches: vi.fn(async (id: string) => [...(state.branches.get(id) ?? [])]),
    copyText: vi.fn(async (text: string) => {
      state.clipboard = text;
      return true;
    }),
    pendingApprovals: vi.fn(async (id: string) => [...(state.pending.get(id) ?? [])]),
    decide: vi.fn(async (id: string, callID: string, d: DecisionInput) => {
      const list = state.pending.get(id) ?? [];
      if (!list.some((p) => p.call_id === callID)) throw { code: 'not_pending', message: `call ${callID} is not pending` };
      if (d.always) await api.addRule(d.always);
      state.pending.set(
        id,
        list.filter((p) => p.call_id !== callID),
      );
    }),
    palette: vi.fn(async (_id: string) => [...state.palette]),
    sendCommand: vi.fn(async (id: string, name: string, args: string) => {
      const rows = state.rows.get(id) ?? [];
      rows.push(chunk(id, rows.length + 1, 'user', { text: `${name} ${args}`.trim(), command: `/${name}` }));
      state.rows.set(id, rows);
      return 'run1';
    }),
    queuedMessages: vi.fn(async (_id: string) => []),
    removeQueued: vi.fn(async (_id: string, _q: string) => true),
    sendQueued: vi.fn(async (_id: string, _q: string) => 'run-q'),
    live: vi.fn(async (id: string) => ({
      seq: 1_000_000,
      running_run_id: state.running.get(id) ?? '',
      pending: [...(state.pending.get(id) ?? [])],
      running: [],
      queued: [],
    })),
    setMode: vi.fn(async (id: string, mode: string, approve: string) => {
      const m = { mode, approve } as SessionMode;
      state.modes.set(id, m);
      return m;
    }),
    executePlan: vi.fn(async (id: string, approve: string) => {
      state.modes.set(id, { mode: 'execute', approve } as SessionMode);
      return 'run-exec';
    }),
    compactHere: vi.fn(async (_id: string, _seq: number) => 'run-compact'),
    undoCompaction: vi.fn(async (_id: string, _seq: number) => {}),
    suggestRule: vi.fn(async (id: string, callID: string) => {
      if (state.suggestion) return state.suggestion;
      const p = (state.pending.get(id) ?? []).find((x) => x.call_id === callID);
      return { tool: p?.name ?? '', pattern: '*', effect: 'allow', scope: 'session', session_id: id } as RuleInput;
    }),

    chooseFolder: vi.fn(async () => state.folder),
    setWorkspace: vi.fn(async (id: string, path: string) => {
      const s = find(id);
      s.workspace = path;
      return s as Session;
    }),
    listFiles: vi.fn(async (id: string) => [...(state.files.get(find(id).workspace) ?? [])]),
    readFile: vi.fn(async (_id: string, path: string): Promise<FilePreview> => {
      const content = state.contents.get(path);
      if (content === undefined) throw { code: 'not_found', message: `${path}: no such file` };
      return { path, content, truncated: false, binary: false };
    }),
    touchedFiles: vi.fn(async (id: string, after = 0) => (state.touched.get(id) ?? []).filter((t) => (state.changedAt.get(t) ?? t.seq) > after)),

    changes: vi.fn(async (id: string) => [...(state.changes.get(id) ?? [])]),
    fileDiff: vi.fn(async (_id: string, seq: number, path: string) => {
      const d = state.diffs.get(`${seq}:${path}`);
      if (!d) throw { code: 'not_found', message: `row ${seq} did not change ${path}` };
      return d;
    }),
    restorePreview: vi.fn(async (_id: string, _seq: number, path = '') => filterPlan(state.restorePlan, path, true)),
    restore: vi.fn(async (_id: string, _seq: number, path: string, override: string[]) => {
      if (state.restoreError) throw state.restoreError;
      const plan = filterPlan(state.restorePlan, path, false);
      const missing = (plan.conflicts ?? []).filter((c) => !override.includes(c.path));
      if (missing.length > 0) throw { code: 'error', message: `conflict: ${missing.map((c) => c.path).join(', ')}` };
      return plan;
    }),
    hunks: vi.fn(async (id: string) => [...(state.hunks.get(id) ?? [])]),
    keepHunk: vi.fn(async (id: string, seq: number, path: string, hunk: number) => setHunkState(id, seq, path, hunk, 'kept')),
    revertHunk: vi.fn(async (id: string, seq: number, path: string, hunk: number) => {
      if (state.revertError) throw state.revertError;
      const h = setHunkState(id, seq, path, hunk, 'reverted');
      return { hunk: h, note_seq: seq + 1, from_line: h.new_start, to_line: h.new_start + h.old_lines - 1 };
    }),
    applyToParent: vi.fn(async (forkID: string) => ({ parent_id: `parent-of-${forkID}`, seq: 9, paths: ['a.txt'] })),
    forkFolderOf: vi.fn(async (id: string) => state.forkFolders.get(id) ?? { folder: '', branch: '', bytes: 0 }),
    deleteSessionAndFolder: vi.fn(async (id: string) => {
      state.sessions = state.sessions.filter((s) => s.id !== id);
      return state.forkFolders.get(id)?.folder ?? '';
    }),
    orphanForks: vi.fn(async () => [...state.orphans]),
    removeOrphanFork: vi.fn(async (forkID: string) => {
      const o = state.orphans.find((x) => x.fork_id === forkID);
      state.orphans = state.orphans.filter((x) => x.fork_id !== forkID);
      return o?.folder ?? '';
    }),
    launchFolder: vi.fn(async () => {
      const f = state.launchFolder;
      state.launchFolder = '';
      return f;
    }),
    setFocused: vi.fn(async (focused: boolean) => {
      state.focused.push(focused);
    }),
    uiState: vi.fn(async () => ({ ...state.ui })),
    saveUIState: vi.fn(async (s: UIState) => {
      state.ui = { ...s };
    }),
    saveGeometry: vi.fn(async () => {}),

    openURL: vi.fn((_url: string) => {}),
    onEvent: vi.fn((h: Handler) => {
      handlers.add(h);
      return () => {
        handlers.delete(h);
      };
    }),
    onWorkspaceChanged: vi.fn((h: (ev: WorkspaceChanged) => void) => {
      wsHandlers.add(h);
      return () => {
        wsHandlers.delete(h);
      };
    }),
    onWorkspaceWarning: vi.fn((h: (ev: WorkspaceWarning) => void) => {
      warnHandlers.add(h);
      return () => {
        warnHandlers.delete(h);
      };
    }),
    onMCPStatus: vi.fn((h: (st: McpStatus) => void) => {
      mcpHandlers.add(h);
      return () => {
        mcpHandlers.delete(h);
      };
    }),
    onOpenFolder: vi.fn((h: (ev: OpenFolder) => void) => {
      folderHandlers.add(h);
      return () => {
        folderHandlers.delete(h);
      };
    }),
    onFocusCard: vi.fn((h: (ev: FocusCard) => void) => {
      focusHandlers.add(h);
      return () => {
        focusHandlers.delete(h);
      };
    }),

    inbox: vi.fn(async () => structuredClone(state.inbox)),
    inboxAnswer: vi.fn(async (a: InboxAnswer) => {
      state.answers.push(a);
      state.inbox = { ...state.inbox, approvals: (state.inbox.approvals ?? []).filter((x) => !(x.session_id === a.session_id && x.call_id === a.call_id)) };
    }),
    inboxAlwaysPreview: vi.fn(async (_sessionID: string, _callID: string, scope: string): Promise<InboxRulePreview> => state.rulePreview ?? { rule: 'allow', scope, others: [] }),
    inboxAlwaysAllow: vi.fn(async (_sessionID: string, _callID: string, _scope: string) => 1 + (state.rulePreview?.others?.length ?? 0)),
    inboxDismiss: vi.fn(async (runID: string) => {
      state.inbox = { ...state.inbox, ended: (state.inbox.ended ?? []).filter((e) => e.run_id !== runID) };
    }),
    onInboxChanged: vi.fn((h: (v: InboxView) => void) => {
      inboxHandlers.add(h);
      return () => {
        inboxHandlers.delete(h);
      };
    }),
    sessionActivity: vi.fn(async () => [...state.activity]),
    onActivityChanged: vi.fn((h: (a: Activity) => void) => {
      activityHandlers.add(h);
      return () => {
        activityHandlers.delete(h);
      };
    }),
    setWindowTitle: vi.fn((title: string) => {
      state.title = title;
    }),

    runInNewSession: vi.fn(async (sessionID: string, text: string) => {
      const from = find(sessionID);
      const s = session(text, { workspace: from.workspace, model: from.model, provider: from.provider, running: true });
      state.sessions = [s, ...state.sessions];
      return s;
    }),
    runsGoing: vi.fn(async () => state.sessions.filter((s) => s.running).length),
    stopAndQuit: vi.fn(async () => {}),
    keepRunning: vi.fn(async () => {}),
    quit: vi.fn(async () => {}),
    onCloseRequested: vi.fn((h: (r: CloseRequest) => void) => {
      closeHandlers.add(h);
      return () => {
        closeHandlers.delete(h);
      };
    }),
    approvalReport: vi.fn(async (_sessionID: string, _since: string) => state.approvalReport),
    acceptSuggestion: vi.fn(
      async (sg: Suggestion): Promise<Rule> => ({
        id: `rule-${sg.rule.tool}`,
        tool: sg.rule.tool,
        pattern: sg.rule.pattern,
        effect: 'allow',
        scope: sg.rule.scope,
        scope_id: sg.would_allow?.[0]?.session_id ?? '',
        created_at: new Date().toISOString(),
      }),
    ),
    providerLimits: vi.fn(async (_sessionID: string) => state.limits),
    harnessTokens: vi.fn(async (_sessionID: string) => state.harness),
    memories: vi.fn(async (_listed: string) => state.memories.map((m) => ({ ...m }))),
    addMemory: vi.fn(async (_sessionID: string, scope: string, text: string, _listed: string) => {
      if (!text.trim()) throw { code: 'invalid_input', message: 'a memory needs text' };
      state.memories.push({ id: `m${state.memories.length + 1}`, scope: scope as MemoryView['scope'], text: text.trim(), workspace: '', source: null,
        updated_at: '', from: 'added by you', source_title: '' });
      return state.memories.map((m) => ({ ...m }));
    }),
    editMemory: vi.fn(async (id: string, text: string, _listed: string) => {
      state.memories = state.memories.map((m) => (m.id === id ? { ...m, text } : m));
      return state.memories.map((m) => ({ ...m }));
    }),
    removeMemory: vi.fn(async (id: string, _listed: string) => {
      state.memories = state.memories.filter((m) => m.id !== id);
      return state.memories.map((m) => ({ ...m }));
    }),
    memoryProposals: vi.fn(async () => state.memoryProposals.map((p) => ({ ...p }))),
    memoryFigure: vi.fn(async (_sessionID: string) => ({ count: state.memories.length, tokens: state.memories.length * 12, warning: '' })),
    answerMemoryProposal: vi.fn(async (id: string, _accept: boolean) => {
      state.memoryProposals = state.memoryProposals.filter((p) => p.id !== id);
      return state.memoryProposals.map((p) => ({ ...p }));
    }),
  } satisfies Api;

  let seq = 0;
  /** Sends a loop event; must-deliver events get the next seq unless one is given. */
  const emit = (ev: Partial<WireEvent> & { type: string; session_id: string }) => {
    const lossy = ev.type === 'text_delta' || ev.type === 'reasoning_delta' || ev.type === 'tool_output';
    if (ev.seq === undefined && !lossy) seq++;
    for (const h of [...handlers]) h({ run_id: 'run1', seq, ...ev } as WireEvent);
  };
  /** Stores rows as the runner does: kept for OpenSession/RowsAfter, then announced on rows_stored. */
  const store = (sessionID: string, rows: Row[], ev: Partial<WireEvent> = {}) => {
    state.rows.set(sessionID, [...(state.rows.get(sessionID) ?? []), ...rows]);
    emit({ type: 'rows_stored', session_id: sessionID, rows, ...ev });
  };
  const emitWorkspace = (ev: WorkspaceChanged) => {
    for (const h of [...wsHandlers]) h(ev);
  };
  const emitWarning = (ev: WorkspaceWarning) => {
    for (const h of [...warnHandlers]) h(ev);
  };
  /** A server's new status, as Go's mcp:status sends it (and kept for MCPServers). */
  const emitMcp = (st: McpStatus) => {
    state.mcpStatuses = [...state.mcpStatuses.filter((x) => x.name !== st.name), st];
    for (const h of [...mcpHandlers]) h(st);
  };
  /** A later launch naming a folder (app:open-folder). */
  const emitOpenFolder = (ev: OpenFolder) => {
    for (const h of [...folderHandlers]) h(ev);
  };
  /** A click on a desktop notification (app:focus-card). */
  const emitFocusCard = (ev: FocusCard) => {
    for (const h of [...focusHandlers]) h(ev);
  };
  /** The window being closed while runs go (app:close-requested). */
  const emitCloseRequested = (r: CloseRequest) => {
    for (const h of [...closeHandlers]) h(r);
  };
  /** The inbox as Go's inbox:changed sends it (and kept for Inbox). */
  const emitInbox = (v: InboxView) => {
    state.inbox = v;
    for (const h of [...inboxHandlers]) h(structuredClone(v));
  };
  /** One session's activity:changed. */
  const emitActivity = (a: Activity) => {
    for (const h of [...activityHandlers]) h(a);
  };
  return { api, state, emit, store, emitCloseRequested, emitWorkspace, emitWarning, emitMcp, emitOpenFolder, emitFocusCard, emitInbox, emitActivity, session, chunk, meter };
}

export type FakeApi = ReturnType<typeof makeFakeApi>;

/** A stored row of the given kind; its payload is typed by the kind. */
export function chunk<K extends ChunkKind>(session_id: string, seq: number, kind: K, payload: RowPayloads[K], run_id = 'run1'): Row {
  // The page's one row-building cast: a generic K does not narrow the Row union, and the
  // parameters tie kind and payload together.
  return { session_id, seq, kind, payload, run_id, created_at: new Date().toISOString(), tokens: 10 } as Row;
}

const UNITS: Record<Meter['key'], [string, Meter['unit']]> = {
  turns: ['Turns', 'count'],
  tool_calls: ['Tool calls', 'count'],
  tokens: ['Tokens', 'tokens'],
  cost: ['Cost', 'usd'],
  time: ['Time', 'seconds'],
  context: ['Context', 'tokens'],
};

/** A meter as Go computes it (fraction and level given, or derived here as Go would). */
export function meter(key: Meter['key'], value: number, limit = 0, over: Partial<Meter> = {}): Meter {
  const fraction = limit > 0 ? Math.min(1, value / limit) : 0;
  const [label, unit] = UNITS[key];
  return { key, label, value, limit, unit, fraction, level: fraction >= 1 ? 'hard' : fraction >= 0.8 ? 'soft' : 'ok', ...over };
}

function filterPlan(p: RestorePlan, path: string, dry: boolean): RestorePlan {
  const keep = (x: string) => !path || x === path;
  return {
    ...p,
    dry_run: dry,
    restored: (p.restored ?? []).filter((r) => keep(r.path)),
    conflicts: (p.conflicts ?? []).filter((c) => keep(c.path)),
    seq: dry ? 0 : (p.seq ?? 99),
  };
}

/** A server status as Go reports it. */
export function mcpStatus(name: string, over: Partial<McpStatus> = {}): McpStatus {
  return { name, transport: 'stdio', status: 'ready', reason: '', tools: [], stderr_tail: '', trusted: false, ...over };
}
