import { App } from './App';
import { DamagedScreen } from './components/DamagedScreen';
import { useStorageStatus } from './hooks/useStorage';

/** The usual window, or the damaged-database screen when Go refused the database. */
export function Root() {
  const status = useStorageStatus();
  if (!status) return null;
  return status.damaged ? <DamagedScreen status={status} /> : <App />;
}
