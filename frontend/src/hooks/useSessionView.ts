import { useMemo } from 'react';
import type { SessionSummary, Settings } from '../api/types';
import { useCardActions, useSeesImages, useTaskContext } from './useAppActions';
import { useChildren } from './useChildren';
import { RETRYABLE, useControls } from './useControls';
import { useForkFolder } from './useForkFolder';
import { useMcpStarting } from './useMcpStarting';
import { usePlan } from './usePlan';
import { useSandbox, useSandboxStatus } from './useSandbox';
import type { SessionHook } from './useSession';
import { useWorkspace } from './useWorkspace';

interface Args {
  selected: string | null;
  /** The open session as the list has it (undefined until listed). */
  current: SessionSummary | undefined;
  sessions: SessionSummary[];
  chat: SessionHook;
  settings: Settings | null;
  workspace: string;
  open: (id: string, seq?: number | null) => void;
  refresh: () => Promise<unknown>;
  onError: (message: string) => void;
}

/**
 * What the open session's view shows besides its rows: the plan, its task children, the
 * version controls and Retry, the sandbox, the fork's folder, the workspace, whether its model
 * sees images, and what cards do. Held by App, so it lives on while Settings is shown.
 */
export function useSessionView({ selected, current, sessions, chat, settings, workspace, open, refresh, onError }: Args) {
  const record = current ?? chat.session;
  const children = useChildren(selected);
  const childSessions = useMemo(() => sessions.filter((s) => s.parent_id === selected && s.parent_call_id), [sessions, selected]);
  const lastRun = chat.runs.at(-1);
  const lastStatus = chat.outcome?.status ?? lastRun?.status ?? '';
  // The last seq, not how many rows are held: a full window holds as many after a row comes.
  const ctl = useControls(selected, `${chat.seenSeq}:${sessions.length}`, open, refresh, onError);
  return {
    plan: usePlan(selected, chat.rows),
    ws: useWorkspace(selected, workspace, chat.rows),
    forkFolder: useForkFolder(selected, Boolean(current?.parent_id)),
    mcpStarting: useMcpStarting(),
    seesImages: useSeesImages(settings, selected, record ? `${record.provider}/${record.model}` : ''),
    sandbox: useSandbox(selected, chat.runs.length),
    sandboxStatus: useSandboxStatus(),
    taskCtx: useTaskContext(children, childSessions, open, onError),
    actions: useCardActions(selected, chat.decide, onError),
    childSessions,
    parentTitle: sessions.find((s) => s.id === current?.parent_id)?.title,
    lastRun,
    ctl,
    canRetry: Boolean(selected) && chat.phase === 'idle' && RETRYABLE.includes(lastStatus),
  };
}

export type SessionViewState = ReturnType<typeof useSessionView>;
