import { lazy, Suspense, type ComponentProps } from 'react';

// The diff view (and the diff library) load the first time a card shows a diff, not with the
// first paint.
const Impl = lazy(() => import('./DiffView').then((m) => ({ default: m.DiffView })));

/** DiffView, loaded on first use; its label shows while it loads. */
export function DiffView(props: ComponentProps<typeof Impl>) {
  return (
    <Suspense fallback={<p className="note">{props.label}…</p>}>
      <Impl {...props} />
    </Suspense>
  );
}
