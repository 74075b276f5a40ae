import { createElement } from 'react';
import { laterRoom } from './ui/later-room';

/**
 * The rooms a first screen does not show, loaded after it: their code is the greater part of the app's, and
 * the Markdown pipeline is read with the conversation's. root.tsx preloads them once the library is shown.
 */
export const conversationRoom = laterRoom(
  () => import('./chat/ConversationView').then((room) => room.ConversationView),
  createElement('div', { className: 'state-panel' }, 'Loading…'),
);
export const usageRoom = laterRoom(
  () => import('./usage/UsageView').then((room) => room.UsageView),
  createElement('div', { className: 'state-panel' }, 'Loading…'),
);
