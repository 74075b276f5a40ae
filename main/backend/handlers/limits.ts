import type { HandlersOf, Parts } from '../parts';
import { NotSupported } from '../errors';

/** Plan limits and messages kept for when a limit resets (issue 29). Not built yet. */
export function limitsHandlers(
  _parts: Parts,
): HandlersOf<'limits' | 'sendWhenLimitResets' | 'scheduledSends' | 'cancelScheduledSend'> {
  const notYet = async (): Promise<never> => {
    throw new NotSupported('Limits are not built yet.');
  };
  return { limits: notYet, sendWhenLimitResets: notYet, scheduledSends: notYet, cancelScheduledSend: notYet };
}
