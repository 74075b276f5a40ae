import type { KeyboardEvent } from 'react';
import { useStore } from '../state/store';

/**
 * The CLI's guess at the next prompt (prompt_suggestion), shown faintly in the empty message box as its
 * placeholder: typing hides it as it hides any placeholder, and Tab takes it into the box. It is the
 * composer's own placeholder, not an overlay, so it needs no layout of its own and screen readers read it.
 * The reducer drops it when the next turn starts.
 */
export function usePromptSuggestion(tabId: string, text: string, take: (suggestion: string) => void) {
  const suggestion = useStore((state) => state.tabs[tabId]?.conversation.promptSuggestion ?? null);
  const offered = text === '' ? suggestion : null;
  return {
    placeholder: offered ? `${offered}  (Tab to use)` : null,
    /** True when it took the key. */
    onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>): boolean {
      if (
        !offered ||
        event.key !== 'Tab' ||
        event.shiftKey ||
        event.altKey ||
        event.ctrlKey ||
        event.metaKey
      ) {
        return false;
      }
      if (event.nativeEvent.isComposing) return false;
      take(offered);
      return true;
    },
  };
}
