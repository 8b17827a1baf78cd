import { useState } from 'react';
import { api } from '../api/backend';

/**
 * Copies text through Go's clipboard; `done` says "Copied" (or "Copy failed") for a moment
 * after, so the person knows it worked.
 */
export function useCopy() {
  const [done, setDone] = useState<'' | 'Copied' | 'Copy failed'>('');
  const copy = async (text: string) => {
    setDone((await api.copyText(text)) ? 'Copied' : 'Copy failed');
    setTimeout(() => setDone(''), 1500);
  };
  return { done, copy };
}

/**
 * Opens a link in the system browser, never in the app's own window, and only for http(s)
 * and mailto addresses.
 */
export function openLink(href: string | undefined) {
  if (href && /^(https?:|mailto:)/i.test(href)) api.openURL(href);
}
