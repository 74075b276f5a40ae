/**
 * The Usage slice (issue 29): whether the Usage view is open, what it shows (range, grouping, one folder,
 * tokens or cost), and the report main last gave for it, asked in the user's own time zone so that days
 * are their days. Only the answer to the latest question is kept, so a slow answer never replaces a newer
 * one; while the view is open, main's `usageChanged` asks again.
 */
import type { UsageRange, UsageReport } from '../../../shared/ipc';
import { call } from '../host/api';
import type { StoreGet, StoreSet, UsageSlice } from './types';

const RANGES: UsageRange[] = ['today', '7d', '30d', '90d', 'all'];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The user's time zone ("Europe/Paris"), which the report's days are counted in. */
export function userTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function createUsageSlice(set: StoreSet, get: StoreGet): UsageSlice {
  let reportAsked = 0;
  let dayAsked = 0;
  /**
   * The reports read since usage last changed, by range and folder: once one range is shown the others are
   * read behind it, so that switching the range shows its figures at once instead of waiting on the index
   * (a year of days takes the worker longer than a frame). Usage changing empties it: they would be stale.
   */
  let reports = new Map<string, UsageReport>();
  const keyOf = (range: UsageRange, folder: string | null) => `${range}\u0000${folder ?? ''}`;
  /** The read-ahead going now: for which reports and folder (an older one stops at its next step). */
  let prefetching: { cache: Map<string, UsageReport>; folder: string | null } | null = null;

  /** Reads, one at a time, the other ranges of the folder shown, for as long as nothing changed. */
  const prefetch = (folder: string | null, cache: Map<string, UsageReport>) => {
    if (prefetching && prefetching.cache === cache && prefetching.folder === folder) return;
    const token = { cache, folder };
    prefetching = token;
    void (async () => {
      for (const range of RANGES) {
        if (prefetching !== token || cache !== reports || !get().usageOpen) break;
        if (get().usageFolder !== folder) break;
        if (cache.has(keyOf(range, folder))) continue;
        try {
          const report = await call('usageReport', { range, folder, timeZone: userTimeZone() });
          if (cache === reports) cache.set(keyOf(range, folder), report);
        } catch {
          // Read again when it is asked for; that answer says why if it fails again.
          break;
        }
      }
    })().finally(() => {
      if (prefetching === token) prefetching = null;
    });
  };

  /** Shows the report for the range and folder now chosen: read before, or asked of main. */
  const show = async () => {
    const number = ++reportAsked;
    const { usageRange: range, usageFolder: folder } = get();
    const cache = reports;
    const known = cache.get(keyOf(range, folder));
    if (known) {
      set({ usageReport: known, usageLoading: false, usageError: null });
      return;
    }
    set({ usageLoading: true });
    try {
      const report = await call('usageReport', { range, folder, timeZone: userTimeZone() });
      if (cache === reports) cache.set(keyOf(range, folder), report);
      if (number === reportAsked) {
        set({ usageReport: report, usageLoading: false, usageError: null });
        // The index was still reading: its figures will grow, so the others are not worth reading yet.
        if (!report.indexing) prefetch(folder, cache);
      }
    } catch (error) {
      if (number === reportAsked) set({ usageLoading: false, usageError: messageOf(error) });
    }
  };

  const slice: UsageSlice = {
    usageOpen: false,
    usageRange: '30d',
    usageGrouping: 'day',
    usageFolder: null,
    usageMetric: 'tokens',
    usageReport: null,
    usageLoading: false,
    usageError: null,
    usageDay: null,

    openUsage() {
      if (get().usageOpen) return;
      // What was read while it was open last may be hours old.
      reports = new Map();
      // A day's list from then would be as old.
      set({ usageOpen: true, usageDay: null });
      void get().refreshUsage();
    },

    closeUsage() {
      set({ usageOpen: false, usageDay: null });
    },

    toggleUsage() {
      if (get().usageOpen) get().closeUsage();
      else get().openUsage();
    },

    async setUsageRange(range) {
      set({ usageRange: range, usageDay: null });
      await show();
    },

    setUsageGrouping(grouping) {
      // The report holds every grouping: switching asks main nothing.
      set({ usageGrouping: grouping });
    },

    async setUsageFolder(folder) {
      set({ usageFolder: folder, usageDay: null });
      await show();
    },

    setUsageMetric(metric) {
      set({ usageMetric: metric });
    },

    async refreshUsage() {
      reports.delete(keyOf(get().usageRange, get().usageFolder));
      await show();
    },

    async showUsageDay(day) {
      const number = ++dayAsked;
      if (day === null) {
        set({ usageDay: null });
        return;
      }
      set({ usageDay: { day, conversations: null, error: null } });
      try {
        const { conversations } = await call('usageDayConversations', {
          day,
          folder: get().usageFolder,
          timeZone: userTimeZone(),
        });
        if (number === dayAsked) set({ usageDay: { day, conversations, error: null } });
      } catch (error) {
        if (number === dayAsked) set({ usageDay: { day, conversations: null, error: messageOf(error) } });
      }
    },

    async openUsageConversation(sessionId) {
      // The conversation takes the place the view had, as opening one from the list does.
      get().closeUsage();
      await get().openSaved(sessionId);
    },

    usageLibraryChanged() {
      if (get().usageOpen && get().usageReport?.indexing) get().usageChanged();
    },

    usageChanged() {
      reports = new Map();
      if (!get().usageOpen) return;
      void get().refreshUsage();
      const day = get().usageDay;
      if (day) void get().showUsageDay(day.day);
    },
  };
  return slice;
}
