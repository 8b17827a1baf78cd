import type { FormEvent } from 'react';

/** A form's submit handler: the page stays where it is (no navigation), and submit runs. */
export function submitted(submit: () => unknown) {
  return (e: FormEvent) => {
    e.preventDefault();
    void submit();
  };
}
