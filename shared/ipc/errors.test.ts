/**
 * The list of error names stays the list main sends: every error class in main sets a name in it, and
 * every name in it is one main or a host sends. Read from the sources, so a new error class that is not
 * listed (or a listed name nobody sends any more) fails here rather than in a renderer's switch.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IpcErrorName } from './errors';

const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const text = (room: string) =>
  sources(join(ROOT, room))
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');

describe('IpcErrorName', () => {
  it('holds the name of every error class in main, and only names main or a host sends', () => {
    const main = text('main');
    const classNames = [...main.matchAll(/override\s+(?:readonly\s+)?name\s*=\s*'(\w+)'/g)].map(
      (match) => match[1] ?? '',
    );
    expect(classNames.length).toBeGreaterThan(20);
    const listed: readonly string[] = IpcErrorName.options;
    expect(classNames.filter((name) => !listed.includes(name))).toEqual([]);

    const senders = `${main}\n${text('renderer/src')}`;
    expect(listed.filter((name) => !senders.includes(`'${name}'`))).toEqual([]);
  });
});
