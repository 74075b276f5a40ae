/**
 * One line of a session file, parsed with its nesting capped. JSON.parse reads a value nested thousands of
 * levels deep, but everything after it that walks the value recursively (JSON.stringify for the index and
 * for the page, structured clone over Electron's IPC, the renderer's views) runs out of stack. Capping it
 * here, where the library's index and the pages sent to a window both parse their lines, keeps such a line
 * readable everywhere: past the cap the value is replaced with a placeholder the page shows as it is.
 */

/** Far deeper than any real message (a tool input is a few levels below the line), far below any stack. */
export const MAX_JSON_DEPTH = 100;
export const TOO_DEEP = '[nested too deep to show]';

/** JSON.parse, with anything nested deeper than MAX_JSON_DEPTH replaced by TOO_DEEP. Throws as it does. */
export function parseJsonLine(text: string): unknown {
  return capDepth(JSON.parse(text) as unknown, 0);
}

/** Changes the freshly parsed value in place: nothing else holds it yet. */
function capDepth(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const capped = capDepth(item, depth + 1);
      if (capped !== item) value[index] = capped;
    }
    return value;
  }
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    const capped = capDepth(field, depth + 1);
    // Defined rather than assigned: a parsed `__proto__` key is a plain field, never the prototype.
    if (capped !== field)
      Object.defineProperty(fields, key, {
        value: capped,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return value;
}
