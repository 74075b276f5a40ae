/**
 * The find slice: find in conversation, per tab while its find bar is open (the query, and which of its
 * matches is current), and bringing a message into view (a find match, a search hit).
 */
import { currentMatchIndex, findMatches, findQueryFor } from '../../../shared/conversation/find';
import type { FindSlice, FindState, StoreGet, StoreSet } from './types';
import { tabActions } from './tabs';

export function createFindSlice(set: StoreSet, get: StoreGet): FindSlice {
  const { patchTab } = tabActions(set);
  let focusNonce = 0;

  const focusMessage = (tabId: string, messageId: string) =>
    patchTab(tabId, { focus: { messageId, nonce: ++focusNonce } });

  /** Brings the current find match into view. */
  const focusFind = (tabId: string) => {
    const match = get().finds[tabId]?.current;
    if (match) focusMessage(tabId, match.messageId);
  };

  const patchFind = (tabId: string, update: (find: FindState) => FindState) =>
    set((state) => ({
      finds: {
        ...state.finds,
        [tabId]: update(state.finds[tabId] ?? { query: '', current: null, opened: 0 }),
      },
    }));

  return {
    finds: {},
    focusMessage,

    openFind(tabId) {
      patchFind(tabId, (find) => ({ ...find, opened: find.opened + 1 }));
    },

    setFindQuery(tabId, query) {
      const conversation = get().tabs[tabId]?.conversation;
      const first = conversation ? (findMatches(conversation, query)[0] ?? null) : null;
      patchFind(tabId, (find) => ({ ...find, query, current: first }));
      focusFind(tabId);
    },

    stepFind(tabId, step) {
      const conversation = get().tabs[tabId]?.conversation;
      const find = get().finds[tabId];
      if (!conversation || !find) return;
      const matches = findMatches(conversation, find.query);
      if (matches.length === 0) return;
      const at = currentMatchIndex(matches, find.current);
      const next = matches[(at + step + matches.length) % matches.length] ?? null;
      patchFind(tabId, (current) => ({ ...current, current: next }));
      focusFind(tabId);
    },

    closeFind(tabId) {
      set((state) => {
        const { [tabId]: _closed, ...finds } = state.finds;
        return { finds };
      });
    },

    showFindMatch(tabId, messageId, text) {
      const conversation = get().tabs[tabId]?.conversation;
      if (!conversation) return;
      const query = findQueryFor(conversation, messageId, text);
      const current = findMatches(conversation, query).find((match) => match.messageId === messageId) ?? null;
      patchFind(tabId, (find) => ({ query, current, opened: find.opened + 1 }));
      focusMessage(tabId, messageId);
    },

    moveFind(from, to) {
      set((state) => {
        const { [from]: find, ...finds } = state.finds;
        return find ? { finds: { ...finds, [to]: find } } : {};
      });
    },
  };
}
