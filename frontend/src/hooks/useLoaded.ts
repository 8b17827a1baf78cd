import { useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../api/types';

/**
 * A value loaded from Go on mount and again on refresh(), with the last
 * error. load must be a stable function (an api method).
 */
export function useLoaded<T>(load: () => Promise<T>, initial: T) {
  const [value, setValue] = useState<T>(initial);
  const [error, setError] = useState('');
  const refresh = useCallback(async () => {
    try {
      setValue(await load());
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [load]);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return { value, error, setError, refresh };
}
