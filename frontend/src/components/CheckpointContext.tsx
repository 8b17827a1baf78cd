import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import type { Change } from '../api/types';
import type { FileDiff, McpName, Row, Session } from '../api/types';
import { useChanges, useCheckpointActions, useMcpNames } from '../hooks/useCheckpoints';
import { serverOf, type ChangesBySeq } from '../state/checkpoints';
import { RestoreDialog } from './RestoreDialog';

/**
 * What rows, cards and the workspace tab need to show checkpoints and MCP servers: each row's
 * file changes, the server of an MCP tool, a file's diff at a row, and the restore and
 * fork-with-files actions. Given by CheckpointProvider; the default shows nothing and does
 * nothing, so a component renders the same without it.
 */
export interface Checkpoints {
  sessionID: string | null;
  changes: ChangesBySeq;
  serverOf: (tool: string) => string | undefined;
  fileDiff: (seq: number, path: string) => Promise<FileDiff>;
  /** Opens the restore preview: the whole folder, or one path, to before row seq. */
  restore: (seq: number, path?: string) => void;
  /** Forks at seq with the fork's own copy of the folder as it was at that row. */
  forkWithFiles: (seq: number) => void;
}

const NO_CHANGES: ChangesBySeq = {};
const NO_NAMES = new Map<string, McpName>();

export const CheckpointContext = createContext<Checkpoints>({
  sessionID: null,
  changes: NO_CHANGES,
  serverOf: (tool) => serverOf(NO_NAMES, tool),
  fileDiff: () => Promise.reject(new Error('no session')),
  restore: () => {},
  forkWithFiles: () => {},
});

export const useCheckpoints = () => useContext(CheckpointContext);

/** The changes one row made (undefined when none). */
export function useRowChanges(seq: number | undefined): Change[] | undefined {
  const { changes } = useCheckpoints();
  return seq === undefined ? undefined : changes[seq];
}

interface Props {
  sessionID: string | null;
  rows: Row[];
  /** Live files_changed of the session (its reducer's `changes`). */
  live: ChangesBySeq;
  onForked: (s: Session) => void;
  onError: (message: string) => void;
  children: ReactNode;
}

export function CheckpointProvider({ sessionID, rows, live, onForked, onError, children }: Props) {
  const { changes, reload } = useChanges(sessionID, rows, live);
  const names = useMcpNames();
  const [asked, setAsked] = useState<{ seq: number; path: string } | null>(null);

  const { forkWithFiles, fileDiff } = useCheckpointActions(sessionID, onForked, onError);

  const value = useMemo<Checkpoints>(
    () => ({
      sessionID,
      changes,
      serverOf: (tool) => serverOf(names, tool),
      fileDiff,
      restore: (seq, path = '') => setAsked({ seq, path }),
      forkWithFiles: (seq) => void forkWithFiles(seq),
    }),
    [sessionID, changes, names, forkWithFiles, fileDiff],
  );

  return (
    <CheckpointContext.Provider value={value}>
      {children}
      {asked && sessionID && (
        <RestoreDialog
          key={`${asked.seq}:${asked.path}`}
          sessionID={sessionID}
          seq={asked.seq}
          path={asked.path}
          onClose={() => setAsked(null)}
          onRestored={() => {
            setAsked(null);
            reload();
          }}
        />
      )}
    </CheckpointContext.Provider>
  );
}
