import { useCallback, useEffect, useState } from 'react';
import { api } from './api/backend';
import type { Settings } from './api/types';
import { errorMessage } from './api/types';
import { Conversation } from './components/Conversation';
import { MessageBox } from './components/MessageBox';
import { SessionList } from './components/SessionList';
import { SettingsPanel } from './components/SettingsPanel';
import { useChat } from './hooks/useChat';
import { useSessions } from './hooks/useSessions';

export function App() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [showSettings, setShowSettings] = useState(false);
  const [loadError, setLoadError] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const { sessions, refresh, create, error: listError } = useSessions();
  const chat = useChat(selected, refresh);

  useEffect(() => {
    api.getSettings().then(
      (s) => {
        setSettings(s);
        if (!s.configured) setShowSettings(true);
      },
      (e) => setLoadError(errorMessage(e)),
    );
  }, []);

  const newSession = useCallback(async () => {
    const s = await create();
    if (s) {
      setSelected(s.id);
      setShowSettings(false);
    }
  }, [create]);

  const send = useCallback(
    async (text: string) => {
      let id = selected;
      if (!id) {
        const s = await create();
        if (!s) return false;
        id = s.id;
        setSelected(id);
      }
      return chat.send(text, id);
    },
    [selected, create, chat],
  );

  const title = sessions.find((s) => s.id === selected)?.title;

  return (
    <div className="app">
      <SessionList
        sessions={sessions}
        selected={selected}
        onSelect={(id) => {
          setSelected(id);
          setShowSettings(false);
        }}
        onNew={newSession}
        onSettings={() => setShowSettings(true)}
      />
      <main className="main">
        {(loadError || listError) && (
          <div className="banner" role="alert">
            {loadError || listError}
          </div>
        )}
        {showSettings ? (
          <SettingsPanel
            settings={settings}
            onSaved={(s) => setSettings(s)}
            onClose={() => setShowSettings(false)}
          />
        ) : (
          <>
            <header className="main-head">
              <h1>{title ?? 'New conversation'}</h1>
              {settings && <span className="model">{settings.model}</span>}
            </header>
            <Conversation rows={chat.rows} streaming={chat.streaming} state={chat.state} outcome={chat.outcome} error={chat.error} />
            <MessageBox
              running={chat.state !== 'idle'}
              disabled={!settings?.configured}
              onSend={send}
              onStop={chat.stop}
            />
          </>
        )}
      </main>
    </div>
  );
}
