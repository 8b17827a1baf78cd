import type { FormEvent } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { submitted } from './forms';

describe('submitted', () => {
  it('keeps the page from navigating and runs the submit once', () => {
    const submit = vi.fn();
    const preventDefault = vi.fn();
    submitted(submit)({ preventDefault } as unknown as FormEvent);
    expect(preventDefault).toHaveBeenCalledOnce();
    expect(submit).toHaveBeenCalledOnce();
  });
});
