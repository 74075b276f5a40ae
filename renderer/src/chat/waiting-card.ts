import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { PermissionRequest } from '../../../shared/conversation';
import { useStore } from '../state/store';
import { holdsInput } from '../ui/focus';

/**
 * What every card that waits on the user shares (a permission, a question, a plan): where the focus goes as
 * cards come and go, so that a keystroke meant for the message box never answers one, and the focus is
 * never dropped when a card goes.
 */

const NONE: PermissionRequest[] = [];

/** Requests that have had their chance at the focus: a card shown again (its tab reopened) leaves it be. */
const offeredFocus = new Set<string>();

/**
 * A waiting card's focus: the newest takes it when it appears (never from a field the user writes in), and
 * one that goes while it has it hands it on. Every kind of card (permission, question, plan) shares this.
 */
export function useWaitingCardFocus(tabId: string, requestId: string) {
  const newest = useStore((state) => {
    const waiting = state.tabs[tabId]?.conversation.permissionRequests ?? NONE;
    return waiting[waiting.length - 1]?.requestId === requestId;
  });
  const card = useRef<HTMLDivElement>(null);

  // The newest request takes the focus when it appears, but never from a field (the composer included, empty
  // or not): a keystroke meant for it must never answer a card.
  useEffect(() => {
    if (offeredFocus.has(requestId)) return;
    offeredFocus.add(requestId);
    if (newest && !holdsInput(document.activeElement)) card.current?.focus();
    // Once, when the card first appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A card that goes while it has the focus (answered, withdrawn) hands it on rather than drop it.
  useLayoutEffect(() => {
    const element = card.current;
    return () => {
      if (element?.contains(document.activeElement)) handFocusOn(element);
    };
  }, []);
  return card;
}

/**
 * Sending a card's answer, which every kind of card does alike: one answer at a time (even from two clicks
 * before its buttons are disabled), the focus kept on the card while its controls are disabled, and a note
 * when Claude no longer waited or the answer could not be sent, after which the card can be answered again.
 * `what` names the answer in the notes: "answer" or "answers".
 */
export function useCardAnswer<Choice extends string>(
  card: RefObject<HTMLDivElement | null>,
  what: 'answer' | 'answers',
) {
  const [sending, setSending] = useState<Choice | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const inFlight = useRef(false);

  const send = async (choice: Choice, call: () => Promise<{ answered: boolean }>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    // The control in use is about to be disabled: the card keeps the focus instead of losing it.
    if (card.current?.contains(document.activeElement)) card.current.focus({ preventScroll: true });
    setSending(choice);
    setNote(null);
    try {
      // Answered: the card goes when the request is resolved; until then it stays disabled.
      if ((await call()).answered) return;
      setNote(`Claude was no longer waiting for ${what === 'answer' ? 'this answer' : 'these answers'}.`);
    } catch (error) {
      setNote(`The ${what} could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
    inFlight.current = false;
    setSending(null);
  };
  return { sending, note, setNote, send };
}

/** The focus leaves a card that is going: to the next waiting card, or else back to the message box. */
function handFocusOn(leaving: HTMLElement): void {
  const cards = [...document.querySelectorAll<HTMLElement>('.permission-card')].filter(
    (candidate) => candidate !== leaving,
  );
  const next = cards[cards.length - 1] ?? document.querySelector<HTMLElement>('.composer textarea');
  next?.focus();
}
