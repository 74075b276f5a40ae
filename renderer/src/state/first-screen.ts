import { FIRST_SCREEN_DATA_ID, FIRST_SCREEN_ROWS, FirstScreenRows } from '../../../shared/first-screen';
import type { LibraryRow } from '../../../shared/library';
import { call } from '../host/api';

/**
 * The library's first screen of rows. The host draws them into the page it serves, with the rows as data
 * (shared/first-screen.ts): the app's first render draws the same rows from that data, in place of the
 * host's drawing. Without them (the host had none in time) they are asked for by the window's first code,
 * before the rest of the app has loaded: the host answers while the page's code is still being read, and
 * the rows show the moment the app can draw them. The whole list follows (the store asks for it as it
 * starts).
 */

export { FIRST_SCREEN_ROWS };

let asked: Promise<LibraryRow[]> | null = null;
/** The rows asked for early, once they have come. */
let come: LibraryRow[] | null = null;

const ask = () => call('libraryList', { limit: FIRST_SCREEN_ROWS }).then(({ rows }) => rows);

export function askFirstScreen(): void {
  const drawn = rowsInPage();
  if (drawn) {
    come = drawn;
    asked = Promise.resolve(drawn);
    return;
  }
  asked = ask().then((rows) => (come = rows));
  // Nobody may take it (the app failed to load): its failure is not an unhandled one.
  asked.catch(() => undefined);
}

/** The early rows if they have come already (the app's first render can draw them: one render fewer). */
export function firstScreenCome(): LibraryRow[] | null {
  return come;
}

/** The rows asked for early, once; later (or if nothing was asked) they are asked for now. */
export function takeFirstScreen(): Promise<LibraryRow[]> {
  const rows = asked ?? ask();
  asked = null;
  return rows;
}

/** The rows the host put in the page with its first screen, taken out of it; null if none (or not readable). */
function rowsInPage(): LibraryRow[] | null {
  const block = document.getElementById(FIRST_SCREEN_DATA_ID);
  if (!block) return null;
  block.remove();
  try {
    const parsed = FirstScreenRows.safeParse(JSON.parse(block.textContent ?? ''));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
