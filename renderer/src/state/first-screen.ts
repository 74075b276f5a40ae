import type { LibraryRow } from '../../../shared/library';
import { call } from '../host/api';

/**
 * The library's first screen of rows, asked for by the window's first code, before the rest of the app has
 * loaded: the host answers while the page's code is still being read, and the rows show the moment the app
 * can draw them. The whole list follows (the store asks for it as it starts).
 */

/** More rows than the tallest window shows at once. */
export const FIRST_SCREEN_ROWS = 100;

let asked: Promise<LibraryRow[]> | null = null;
/** The rows asked for early, once they have come. */
let come: LibraryRow[] | null = null;

const ask = () => call('libraryList', { limit: FIRST_SCREEN_ROWS }).then(({ rows }) => rows);

export function askFirstScreen(): void {
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
