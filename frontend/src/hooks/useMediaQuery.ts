import { useEffect, useState } from 'react';

/** Whether the window matches a media query, following changes (resizes). */
export function useMediaQuery(query: string): boolean {
  const get = () => typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(query).matches;
  const [matches, setMatches] = useState(get);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const m = window.matchMedia(query);
    const on = () => setMatches(m.matches);
    on();
    m.addEventListener('change', on);
    // Some engines (happy-dom) report a resize but no change of the query list.
    window.addEventListener('resize', on);
    return () => {
      m.removeEventListener('change', on);
      window.removeEventListener('resize', on);
    };
  }, [query]);
  return matches;
}
