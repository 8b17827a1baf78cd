import type { HTMLAttributes } from 'react';
import { useModalFocus } from '../hooks/useModalFocus';

/**
 * A dialog's box for dialogs drawn inside a bigger component: the focus goes in when it shows,
 * Tab stays inside, and the focus returns when it goes (useModalFocus).
 */
export function FocusTrap(props: HTMLAttributes<HTMLDivElement>) {
  const ref = useModalFocus<HTMLDivElement>();
  return <div ref={ref} {...props} />;
}
