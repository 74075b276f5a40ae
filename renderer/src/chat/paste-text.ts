/**
 * The text of a paste that also carries files (a screenshot copied with its caption, a file copied from a
 * file manager with its path). The composer takes the files itself, which cancels the browser's paste, so
 * the text is put in here as the paste would have: at the caret, over the selection, and undoable.
 */
export function insertPastedText(box: HTMLTextAreaElement, text: string): void {
  if (text === '') return;
  box.focus();
  // insertText goes through the editor, so Ctrl+Z takes it back and React hears the input as typing.
  if (document.execCommand('insertText', false, text)) return;
  box.setRangeText(text, box.selectionStart, box.selectionEnd, 'end');
  box.dispatchEvent(new Event('input', { bubbles: true }));
}
