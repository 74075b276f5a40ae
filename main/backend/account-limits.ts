import type { Limits } from '../../shared/ipc';
import type { RateLimitInfo } from '../../shared/protocol';
import { limitName, rejectedSummary, resetTime } from '../../shared/rate-limit';
import type { LimitWindows } from '../data/limit-windows';

/**
 * The plan's limits as main hears of them: every conversation's `rate_limit_event` updates the account's
 * window of its kind (limits.json) and tells the windows (`limitsChanged`); past the user's threshold, a
 * notification says so, once per window per reset. Each conversation's own last line is kept too: "Send when
 * the limit resets" is only for a conversation whose limit is reached.
 *
 * The notifications are all main's (the window shows them while it is in the background): one when a window
 * crosses the threshold, one when a limit is reached, and a line that does both says it once, as reached.
 */
export class AccountLimits {
  private readonly lastOf = new Map<string, RateLimitInfo>();

  constructor(
    private readonly windows: LimitWindows,
    private readonly alertAt: () => number,
    private readonly tell: {
      changed: (limits: Limits) => void;
      notify: (conversationId: string, title: string, message: string) => void;
    },
  ) {}

  current(): Limits {
    return { windows: this.windows.windows(), alertAt: this.alertAt() };
  }

  /** A conversation's `rate_limit_event`. */
  heard(conversationId: string, info: RateLimitInfo): void {
    this.lastOf.set(conversationId, info);
    const alertAt = this.alertAt();
    const noted = this.windows.note(info, alertAt);
    if (noted.changed) this.tell.changed(this.current());
    if (noted.reached) {
      this.tell.notify(conversationId, 'Usage limit reached', rejectedSummary(info));
    } else if (noted.alert && info.utilization !== undefined) {
      const resets = info.resetsAt !== undefined ? ` It resets ${resetTime(info.resetsAt)}.` : '';
      this.tell.notify(
        conversationId,
        `${limitName(info.rateLimitType)} at ${Math.round(info.utilization * 100)}%`,
        `You have used ${Math.round(info.utilization * 100)}% of it.${resets}`,
      );
    }
  }

  /** The conversation's last limit line, if one came. */
  last(conversationId: string): RateLimitInfo | undefined {
    return this.lastOf.get(conversationId);
  }

  /** A closed conversation's line is not needed any more. */
  forget(conversationId: string): void {
    this.lastOf.delete(conversationId);
  }
}
