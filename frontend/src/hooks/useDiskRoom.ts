import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { Room } from '../api/types';

/**
 * The space left on the disk holding the database, asked again whenever no run goes on (on
 * opening, and when a run ends): Go measures it and words the message — a warning under
 * 100 MB before the next run, and why sending is refused on a full disk.
 */
export function useDiskRoom(running: boolean): Room | null {
  const [room, setRoom] = useState<Room | null>(null);
  useEffect(() => {
    if (running) return;
    let live = true;
    Promise.resolve()
      .then(() => api.diskRoom())
      .then(
      (r) => live && setRoom(r),
      () => live && setRoom(null), // a disk that cannot say: the run reports it if it fills
    );
    return () => {
      live = false;
    };
  }, [running]);
  return room;
}
