import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expired, loadRecord, recordKeys, saveRecord, type ChangesRecord } from './record';

/** A conversation's Changes record: kept across restarts, a damaged one set aside, old ones let go. */

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'byre-records-')), 'changes');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const commit = (n: number) => String(n).padStart(40, '0');
const DAY = 24 * 60 * 60 * 1000;

function record(lastStepAt: number | null): ChangesRecord {
  return {
    version: 1,
    key: 'session-1',
    folder: '/work/project',
    store: '/data/snapshots',
    start: commit(1),
    turns: lastStepAt === null ? 0 : 1,
    steps:
      lastStepAt === null
        ? []
        : [
            {
              step: {
                kind: 'turn',
                step: 1,
                turn: 1,
                prompt: 'fix it',
                uuid: null,
                at: lastStepAt,
                files: 1,
              },
              before: commit(1),
              after: commit(2),
              files: [{ path: 'a.ts', causes: [{ tool: 'Edit', command: null }] }],
            },
          ],
    updatedAt: 0,
  };
}

describe('the Changes record', () => {
  it('is read back as it was written', async () => {
    await saveRecord(dir, record(5));
    expect(await loadRecord(dir, 'session-1', () => undefined)).toEqual(record(5));
    expect(await recordKeys(dir)).toEqual(['session-1']);
    expect(await loadRecord(dir, 'another', () => undefined)).toBeNull();
  });

  it('sets a damaged record aside with a warning, and the conversation starts afresh', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'session-1.json'), '{"version": 1, "key": "session-1", "steps": [tru');
    const warnings: string[] = [];
    expect(await loadRecord(dir, 'session-1', (message) => warnings.push(message))).toBeNull();
    expect(warnings).toEqual([expect.stringContaining('could not be read')]);
    expect(existsSync(join(dir, 'session-1.json'))).toBe(false);
    expect(readFileSync(join(dir, 'session-1.json.damaged'), 'utf8')).toContain('"steps": [tru');
  });

  it('refuses a key that would name a path outside its folder', async () => {
    await expect(loadRecord(dir, '../settings', () => undefined)).rejects.toThrow(/cannot name/);
  });
});

describe('retention', () => {
  const now = 100 * DAY;

  it('lets go of a record whose last step is older than the days kept, and keeps the rest', () => {
    expect(expired(record(now - 31 * DAY), 30, now)).toBe(true);
    expect(expired(record(now - 29 * DAY), 30, now)).toBe(false);
  });

  it('keeps every record when the setting says to keep them (null)', () => {
    expect(expired(record(0), null, now)).toBe(false);
  });

  it('counts from when the record was written for a conversation with no step yet', () => {
    expect(expired({ ...record(null), updatedAt: now - 2 * DAY }, 1, now)).toBe(true);
    expect(expired({ ...record(null), updatedAt: now }, 1, now)).toBe(false);
  });
});
