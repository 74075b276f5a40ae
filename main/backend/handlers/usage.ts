import type { HandlersOf, Parts } from '../parts';
import { NotSupported } from '../errors';

/**
 * The Usage view's figures, from the library's index (issue 29): the worker answers from the usage sums it
 * keeps as it indexes, so these are queries, never a read of the session files. The usage since a limit
 * window began is the same kind of query, by the messages' own times.
 */
export function usageHandlers(
  parts: Parts,
): HandlersOf<'usageReport' | 'usageDayConversations' | 'windowUsage'> {
  return {
    usageReport: async (request) => {
      checkTimeZone(request.timeZone);
      return parts.library.usageReport(request);
    },
    usageDayConversations: async (request) => {
      checkTimeZone(request.timeZone);
      return { conversations: await parts.library.usageDayConversations(request) };
    },
    windowUsage: (request) => parts.library.windowUsage(request.since),
  };
}

/** Days are the user's local ones: a zone this runtime does not know is refused with its name, not a trace. */
function checkTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw new NotSupported(`Byre does not know the time zone "${timeZone}".`);
  }
}
