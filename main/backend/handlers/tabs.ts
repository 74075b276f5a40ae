import type { HandlersOf, Parts } from '../parts';

/** The window's tabs, kept so that they come back after a restart (main/data/kept-tabs.ts). */
export function tabsHandlers({ tabs }: Parts): HandlersOf<'setOpenTabs' | 'openTabs'> {
  return {
    setOpenTabs: async ({ tabs: shown, active }) => {
      tabs.tell(shown, active);
      return {};
    },
    openTabs: async () => ({ ...tabs.current(), problem: tabs.problem }),
  };
}
