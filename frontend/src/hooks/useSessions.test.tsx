import { renderHook, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { errorCode, errorMessage } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { useSearch } from './useSessions';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('useSearch', () => {
  it('searches text that is not valid FTS syntax literally', async () => {
    const hit = { session_id: 's1', session_title: 't', seq: 4, kind: 'tool_result' as const, snippet: 'x', rank: 1 };
    fake.api.searchSessions.mockImplementation(async (q: string) => {
      if (q === 'zebra-42') throw { code: 'invalid', message: 'fts5: syntax error near "-"' };
      return [];
    });
    fake.api.searchText.mockImplementation(async (text: string) => (text === 'zebra-42' ? [hit] : []));
    const { result } = renderHook(() => useSearch(0));
    result.current.setQuery('zebra-42');
    await waitFor(() => expect(result.current.hits).toEqual([hit]));
    expect(result.current.error).toBe('');
    expect(fake.api.searchText).toHaveBeenCalledWith('zebra-42');
  });

  it('reports other failures', async () => {
    fake.api.searchSessions.mockImplementation(async () => {
      throw { code: 'error', message: 'database is locked' };
    });
    const { result } = renderHook(() => useSearch(0));
    result.current.setQuery('anything');
    await waitFor(() => expect(result.current.error).toBe('database is locked'));
    expect(fake.api.searchText).not.toHaveBeenCalled();
  });
});

describe('errors from the bridge', () => {
  it('reads {code, message} however it is wrapped', () => {
    expect(errorMessage({ code: 'x', message: 'plain' })).toBe('plain');
    expect(errorMessage({ message: { code: 'x', message: 'nested' } })).toBe('nested');
    expect(errorMessage('{"code":"x","message":"as json"}')).toBe('as json');
    expect(errorMessage('just text')).toBe('just text');
    expect(errorMessage(new Error('{"code":"invalid","message":"in an Error"}'))).toBe('in an Error');
    expect(errorCode(new Error('{"code":"invalid","message":"in an Error"}'))).toBe('invalid');
    expect(errorMessage(new Error('plain Error'))).toBe('plain Error');
  });
});
