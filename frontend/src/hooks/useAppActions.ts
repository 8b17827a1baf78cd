import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { ImageInput, PaletteEntry, Session, Settings } from '../api/types';
import { isView, withViews } from '../lib/palette';
import { errorMessage } from '../api/types';
import type { TaskContext } from '../components/TaskProgress';
import type { CardActions } from '../components/ToolCard';
import type { SessionHook } from './useSession';
import type { Children } from './useChildren';
import type { useSessions } from './useSessions';

type List = ReturnType<typeof useSessions>;

/**
 * Whether the open session's model is sent images (the vision setting, else its name's
 * default); read again when the settings are saved or the session's model changes.
 */
export function useSeesImages(settings: Settings | null, selected: string | null, sessionModel: string) {
  const [seesImages, setSeesImages] = useState(true);
  useEffect(() => {
    if (!settings?.model) return;
    let live = true;
    (selected ? api.sessionSeesImages(selected) : api.seesImages()).then((v) => live && setSeesImages(v), () => {});
    return () => {
      live = false;
    };
  }, [settings, selected, sessionModel]);
  return seesImages;
}

/** What a task card needs: its child session, opening it, and answering the child's approvals. */
export function useTaskContext(
  children: Children,
  childSessions: Session[],
  open: (id: string) => void,
  onError: (message: string) => void,
): TaskContext {
  return useMemo(
    () => ({
      children,
      childOf: (callId: string) => childSessions.find((s) => s.parent_call_id === callId)?.id,
      openSession: (id: string) => open(id),
      decide: async (sessionId, callId, d) => {
        try {
          await api.decide(sessionId, callId, d);
          return true;
        } catch (e) {
          onError(errorMessage(e));
          return false;
        }
      },
    }),
    [children, open, childSessions, onError],
  );
}

/** What a tool card does: decide, the rule an "Always" would save, a file's text for its diff. */
export function useCardActions(selected: string | null, decide: SessionHook['decide'], onError: (message: string) => void): CardActions {
  return useMemo(
    () => ({
      decide,
      suggestRule: async (callID: string) => {
        if (!selected) return null;
        try {
          return await api.suggestRule(selected, callID);
        } catch (e) {
          onError(errorMessage(e));
          return null;
        }
      },
      readFile: async (path: string) => {
        if (!selected) return null;
        try {
          const p = await api.readFile(selected, path);
          return p.binary ? null : p.content;
        } catch {
          return null;
        }
      },
      moreOutput: async (seq: number) => {
        if (!selected) return null;
        try {
          return (await api.toolOutput(selected, seq, 0, 0)).text;
        } catch (e) {
          onError(errorMessage(e));
          return null;
        }
      },
    }),
    [decide, selected, onError],
  );
}

interface SessionActionsArgs {
  selected: string | null;
  setSelected: (id: string) => void;
  list: List;
  chat: SessionHook;
  /** The folder a new session starts in ("" for a scratch folder of its own). */
  nextWorkspace: string;
  open: (id: string, seq?: number | null) => void;
  onError: (message: string) => void;
  /** Opens a view of the window the palette names ("approvals"). */
  openView: (name: string) => void;
}

/**
 * The window's actions on sessions: new, open a folder, send (creating the session on the
 * first message), import, fork, choose the folder, and what the message box and the steer bar
 * read (the palette, the instructions). A refusal goes to onError.
 */
export function useSessionActions({ selected, setSelected, list, chat, nextWorkspace, open, onError, openView }: SessionActionsArgs) {
  // The entries the palette shows now: a command that names one of the window's views opens it.
  const entries = useRef<PaletteEntry[]>([]);
  const createAndOpen = useCallback(
    async (folder: string) => {
      const s = await list.create(folder);
      if (s) open(s.id);
    },
    [list, open],
  );
  const send = useCallback(
    async (text: string, images: ImageInput[] = [], command?: { name: string; args: string }) => {
      let id = selected;
      if (!id) {
        const s = await list.create(nextWorkspace);
        if (!s) return false;
        id = s.id;
        setSelected(id);
      }
      return chat.send(text, id, images, command);
    },
    [selected, list, nextWorkspace, chat, setSelected],
  );
  const importSession = useCallback(async () => {
    try {
      const s = await api.importSession();
      if (!s.id) return;
      await list.refresh();
      open(s.id);
      onError('');
    } catch (e) {
      onError(errorMessage(e));
    }
  }, [list, open, onError]);
  const fork = useCallback(
    async (seq: number) => {
      if (!selected) return;
      const s = await list.fork(selected, seq);
      if (s) open(s.id);
    },
    [selected, list, open],
  );
  const chooseFolder = useCallback(async () => {
    try {
      const path = await api.chooseFolder();
      if (!path) return;
      if (selected) {
        chat.updateSession(await api.setWorkspace(selected, path));
        await list.refresh();
      } else {
        await createAndOpen(path);
      }
      onError('');
    } catch (e) {
      onError(errorMessage(e));
    }
  }, [selected, chat, list, createAndOpen, onError]);
  const loadInstructions = useCallback(async () => {
    if (!selected) return null;
    try {
      return await api.instructions(selected);
    } catch (e) {
      onError(errorMessage(e));
      return null;
    }
  }, [selected, onError]);
  return {
    newSession: useCallback(() => createAndOpen(nextWorkspace), [createAndOpen, nextWorkspace]),
    openFolder: createAndOpen,
    send,
    sendCommand: useCallback(
      async (name: string, args: string) => {
        if (!isView(name, entries.current)) return send(`/${name} ${args}`.trim(), [], { name, args });
        openView(name);
        return true;
      },
      [send, openView],
    ),
    loadPalette: useCallback(async () => {
      entries.current = withViews(selected ? await api.palette(selected) : []);
      return entries.current;
    }, [selected]),
    importSession,
    fork,
    // A fork with files is a new session: the list is read again to show it.
    forkedWithFiles: useCallback(
      (s: Session) => {
        void list.refresh();
        open(s.id);
      },
      [list, open],
    ),
    chooseFolder,
    loadInstructions,
  };
}
