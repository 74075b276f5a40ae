/** Where the keyboard's focus may be moved without getting in the user's way. */

const TEXT_INPUTS = new Set(['text', 'search', 'url', 'email', 'tel', 'password', 'number']);

/**
 * The user is writing something (the composer, a reason, the library's search) that taking the focus would
 * interrupt: the keys still to come would land somewhere else.
 */
export function holdsInput(element: Element | null): boolean {
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) return TEXT_INPUTS.has(element.type);
  return element instanceof HTMLElement && element.isContentEditable;
}
