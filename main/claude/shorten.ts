const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/**
 * A JSON line with every string value longer than `keep` bytes cut to about `keep` bytes, still valid JSON
 * (never cut inside a UTF-8 sequence or an escape), so that parsing it costs little. The same buffer if no
 * string is that long; malformed JSON is left for the parser to refuse. `marker`, given the bytes cut, says
 * so at the end of each cut string, written as inside a JSON string (escapes escaped, no bare quote).
 */
export function shortenStrings(
  line: Buffer,
  keep: number,
  marker?: (cutBytes: number) => string,
  /** Keys whose string values are never cut (written compactly, `"key":"…"`): an image's base64, say. */
  spare: readonly string[] = [],
): Buffer {
  const spared = spare.map((key) => Buffer.from(`"${key}":`, 'utf8'));
  const parts: Buffer[] = [];
  let copied = 0;
  for (let open = line.indexOf(QUOTE); open !== -1;) {
    const start = open + 1;
    let close = line.indexOf(QUOTE, start);
    while (close !== -1 && isEscaped(line, close)) close = line.indexOf(QUOTE, close + 1);
    if (close === -1) break;
    if (close - start > keep && !spared.some((key) => endsWith(line, open, key))) {
      const cut = safeCut(line, start + keep);
      parts.push(line.subarray(copied, cut));
      if (marker) parts.push(Buffer.from(marker(close - cut), 'utf8'));
      copied = close;
    }
    open = line.indexOf(QUOTE, close + 1);
  }
  if (parts.length === 0) return line;
  parts.push(line.subarray(copied));
  return Buffer.concat(parts);
}

/** Whether `line` has `key` just before `at`. */
function endsWith(line: Buffer, at: number, key: Buffer): boolean {
  return at >= key.length && line.subarray(at - key.length, at).equals(key);
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function isEscaped(line: Buffer, at: number): boolean {
  let run = 0;
  while (at - run - 1 >= 0 && line[at - run - 1] === BACKSLASH) run += 1;
  return run % 2 === 1;
}

/** `at`, or a little before it, so that no UTF-8 sequence or escape is cut in two. */
function safeCut(line: Buffer, at: number): number {
  let cut = at;
  while (cut > 0 && ((line[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  for (let back = cut - 1; back >= 0 && back >= cut - 6; back -= 1) {
    if (line[back] !== BACKSLASH) continue;
    let runStart = back;
    while (runStart > 0 && line[runStart - 1] === BACKSLASH) runStart -= 1;
    // Escapes pair up from the start of a run of backslashes: `back` starts one if it is an even step in.
    if ((back - runStart) % 2 === 0) {
      const length = line[back + 1] === LETTER_U ? 6 : 2;
      if (back + length > cut) cut = back;
    }
    break;
  }
  return cut;
}
