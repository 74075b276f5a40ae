/**
 * A dialog's one action (Merge, Create pull request, Remove): busy while it runs, so that it is not asked
 * twice, and its failure's message kept for the dialog to show. `keepBusy` leaves it busy after success,
 * for an action whose dialog goes away when it is done.
 */
import { useState } from 'react';

export interface BusyAction {
  busy: boolean;
  error: string | null;
  run(work: () => Promise<void>, options?: { keepBusy?: boolean }): void;
}

export function useBusyAction(): BusyAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run: BusyAction['run'] = (work, options = {}) => {
    setBusy(true);
    setError(null);
    void work().then(
      () => {
        if (!options.keepBusy) setBusy(false);
      },
      (failure: unknown) => {
        setError(failure instanceof Error ? failure.message : String(failure));
        setBusy(false);
      },
    );
  };
  return { busy, error, run };
}
