import type { HandlersOf, Parts } from '../parts';
import { NotSupported } from '../errors';

/** The Usage view's figures, from the library's index (issue 29). Not built yet. */
export function usageHandlers(_parts: Parts): HandlersOf<'usageReport' | 'usageDayConversations'> {
  const notYet = async (): Promise<never> => {
    throw new NotSupported('Usage is not built yet.');
  };
  return { usageReport: notYet, usageDayConversations: notYet };
}
