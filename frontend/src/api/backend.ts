// The only module that talks to Go. Components and hooks import from here,
// never from wailsjs, so tests can replace this one seam.
import * as App from '../../wailsjs/go/main/App';
import { BrowserOpenURL, EventsOn } from '../../wailsjs/runtime/runtime';
import type {
  ConnectionResult,
  Preset,
  Session,
  SessionView,
  Settings,
  SettingsInput,
} from './types';

/** The Wails event that carries every loop event (app.go EventName). */
export const LOOP_EVENT = 'loop:event';

/** A loop event as it arrives: "type" names it; see events.ts for each shape. */
export interface WireEvent {
  type: string;
  session_id: string;
  run_id: string;
  seq: number;
  [field: string]: unknown;
}

export const api = {
  presets: (): Promise<Preset[]> => App.Presets() as Promise<Preset[]>,
  getSettings: (): Promise<Settings> => App.GetSettings() as Promise<Settings>,
  saveSettings: (s: SettingsInput): Promise<Settings> => App.SaveSettings(s as never) as Promise<Settings>,
  testConnection: (baseURL: string, apiKey: string): Promise<ConnectionResult> =>
    App.TestConnection(baseURL, apiKey) as Promise<ConnectionResult>,
  listSessions: async (): Promise<Session[]> => ((await App.ListSessions()) ?? []) as Session[],
  newSession: (): Promise<Session> => App.NewSession() as Promise<Session>,
  openSession: async (id: string): Promise<SessionView> => {
    const v = (await App.OpenSession(id)) as unknown as SessionView;
    return { session: v.session, rows: v.rows ?? [] };
  },
  sendMessage: (sessionID: string, text: string): Promise<string> => App.SendMessage(sessionID, text),
  cancel: (sessionID: string): Promise<void> => App.Cancel(sessionID),
  openURL: (url: string): void => BrowserOpenURL(url),
  /** Subscribes to loop events; returns the unsubscribe function. */
  onEvent: (handler: (ev: WireEvent) => void): (() => void) =>
    EventsOn(LOOP_EVENT, (ev: WireEvent) => handler(ev)),
};

export type Api = typeof api;
