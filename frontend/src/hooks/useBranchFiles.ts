import { useCallback, useState } from 'react';
import type { AbandonedFiles } from '../api/types';

/**
 * The folder choice of an edit or a regeneration: the files the abandoned rows changed (Go's
 * Chat.EditFiles / RegenerateFiles) and the person's "Also restore files" box, which starts
 * as Go's default. Without files (none changed, or they could not be read) there is no box
 * and the control sends restore = false: Go then tells the model which files were kept.
 */
export function useBranchFiles() {
  const [state, setState] = useState<{ files: AbandonedFiles | null; restore: boolean }>({ files: null, restore: false });
  /** Reads the files with load; returns them (null when there is nothing to offer). */
  const fetch = useCallback(async (load: () => Promise<AbandonedFiles | null>) => {
    const files = await load().catch(() => null);
    setState({ files, restore: files?.offer ? files.restore : false });
    return files;
  }, []);
  const setRestore = useCallback((restore: boolean) => setState((s) => ({ ...s, restore })), []);
  const clear = useCallback(() => setState({ files: null, restore: false }), []);
  return { ...state, fetch, setRestore, clear };
}
