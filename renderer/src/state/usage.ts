/**
 * The Usage slice (issue 29): whether the Usage view is open, what it shows (range, grouping, one folder,
 * tokens or cost), and the report main last gave for it, asked in the user's own time zone so that days
 * are their days. Only the answer to the latest question is kept, so a slow answer never replaces a newer
 * one; while the view is open, main's `usageChanged` asks again.
 */
import { call } from '../host/api';
import type { StoreGet, StoreSet, UsageSlice } from './types';

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
      set({ usageOpen: true });
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
      await get().refreshUsage();
    },

    setUsageGrouping(grouping) {
      // The report holds every grouping: switching asks main nothing.
      set({ usageGrouping: grouping });
    },

    async setUsageFolder(folder) {
      set({ usageFolder: folder, usageDay: null });
      await get().refreshUsage();
    },

    setUsageMetric(metric) {
      set({ usageMetric: metric });
    },

    async refreshUsage() {
      const number = ++reportAsked;
      const { usageRange: range, usageFolder: folder } = get();
      set({ usageLoading: true });
      try {
        const report = await call('usageReport', { range, folder, timeZone: userTimeZone() });
        if (number === reportAsked) set({ usageReport: report, usageLoading: false, usageError: null });
      } catch (error) {
        if (number === reportAsked) set({ usageLoading: false, usageError: messageOf(error) });
      }
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

    usageChanged() {
      if (!get().usageOpen) return;
      void get().refreshUsage();
      const day = get().usageDay;
      if (day) void get().showUsageDay(day.day);
    },
  };
  return slice;
}
